//! `compile_commands.json` text, as `drip check -p` reads it (`compdb::parse`): any input must
//! give a database or an error message, never a panic, a hang or a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // drip reads the database as UTF-8 text (anything else is an error before parsing).
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = drip::fuzz::compile_database(text);
    }
});
