//! `.drip.toml` text, as `--config` or the nearest `.drip.toml` is read (`settings::parse`): any
//! input must give settings or an error message, never a panic, a hang or a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // drip reads the file as UTF-8 text (anything else is an error before parsing).
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = drip::fuzz::config_file(text);
    }
});
