//! Preparing captured translation units while the build is still running.
//!
//! Input: the journal as it grows, the number of workers, and the function that prepares one
//! TU (`prepare_tu`: parse, lower, store in drip's TU cache). Output: each new C translation
//! unit handed to `prepare` once, on low-priority worker threads, and the counts of what was
//! prepared, failed or left for `drip check`.
//! Invariants:
//! - the build comes first: workers run at nice +10 above drip, default to one, and stop taking
//!   work as soon as the build is over (what is left is parsed by `drip check` as usual);
//! - nothing here decides what goes into `compile_commands.json`: the merge re-reads the whole
//!   journal at the end, so a line this watcher has not seen yet is never lost;
//! - a journal line written half (on a file system without atomic appends) is not read until its
//!   newline arrives.
//!
//! `prepare_tu` is `frontend::extract_tu` into the same cache directory `drip check` uses by
//! default (`.drip/` beside the database), so the check after the build loads what was prepared.

use super::argv::Lang;
use super::merge;
use crate::cache::Cache;
use crate::compdb::CompileCommand;
use crate::frontend::{self, Extracted};
use std::collections::HashSet;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// What preparing one TU did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prepared {
    /// Parsed, lowered and stored in the cache.
    Stored,
    /// The cache already held it (same arguments, same contents of every file it reads).
    Cached,
    /// libclang failed, or the result could not be stored; `drip check` will parse it and meet
    /// the same problem.
    Failed(String),
}

/// Parse and lower one captured TU and store the result in drip's TU cache, so that the next
/// `drip check` loads it instead of parsing it. This is the one place the cache is called from.
pub fn prepare_tu(cmd: &CompileCommand, cache: &Cache) -> Prepared {
    match frontend::extract_tu(cmd, cache) {
        Extracted::Stored => Prepared::Stored,
        Extracted::AlreadyCached => Prepared::Cached,
        Extracted::NotStored(why) => Prepared::Failed(format!("not stored: {why}")),
        Extracted::Failed(why) => Prepared::Failed(why),
    }
}

pub type PrepareFn = Arc<dyn Fn(&CompileCommand) -> Prepared + Send + Sync>;

/// Reads the lines appended to a file since the last call.
pub struct Tail {
    path: PathBuf,
    offset: u64,
    partial: Vec<u8>,
}

impl Tail {
    pub fn new(path: PathBuf) -> Self {
        Tail { path, offset: 0, partial: Vec::new() }
    }

    /// The complete lines appended since the last call; a last line without its newline waits.
    pub fn read_new(&mut self) -> std::io::Result<Vec<String>> {
        let mut f = std::fs::File::open(&self.path)?;
        f.seek(SeekFrom::Start(self.offset))?;
        let mut buf = Vec::new();
        f.read_to_end(&mut buf)?;
        self.offset += buf.len() as u64;
        self.partial.extend_from_slice(&buf);
        let Some(last_newline) = self.partial.iter().rposition(|b| *b == b'\n') else {
            return Ok(Vec::new());
        };
        let rest = self.partial.split_off(last_newline + 1);
        let complete = std::mem::replace(&mut self.partial, rest);
        Ok(String::from_utf8_lossy(&complete).lines().filter(|l| !l.is_empty()).map(str::to_string).collect())
    }
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WatchReport {
    /// Distinct C translation units seen in the journal while the build ran.
    pub tus_seen: usize,
    pub prepared: usize,
    pub already_cached: usize,
    /// One line per TU that failed.
    pub failed: Vec<String>,
    /// Gone before a worker reached them: files a build compiles and deletes at once (CMake's
    /// and configure's probes), which the database leaves out too.
    pub gone: usize,
    /// Seen but not prepared when the build ended (left for `drip check`).
    pub left: usize,
}

pub struct Watcher {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<WatchReport>,
}

impl Watcher {
    /// Start watching `journal`, preparing each new C TU with `prepare` on `jobs` workers.
    pub fn start(journal: PathBuf, jobs: usize, prepare: PrepareFn, poll: Duration) -> Watcher {
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = Arc::clone(&stop);
        let thread = std::thread::spawn(move || watch(journal, jobs.max(1), prepare, poll, &stop2));
        Watcher { stop, thread }
    }

    /// The build is over: take no new work, wait for the TUs being prepared, report.
    pub fn finish(self) -> WatchReport {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.join().unwrap_or_else(|_| WatchReport {
            failed: vec!["the background watcher panicked".to_string()],
            ..WatchReport::default()
        })
    }
}

fn watch(journal: PathBuf, jobs: usize, prepare: PrepareFn, poll: Duration, stop: &AtomicBool) -> WatchReport {
    let (tx, rx) = crossbeam_channel::unbounded::<CompileCommand>();
    let stop_workers = Arc::new(AtomicBool::new(false));
    let workers: Vec<JoinHandle<WatchReport>> = (0..jobs)
        .map(|_| {
            let rx = rx.clone();
            let prepare = Arc::clone(&prepare);
            let stop_workers = Arc::clone(&stop_workers);
            std::thread::spawn(move || {
                lower_priority();
                let mut r = WatchReport::default();
                while let Ok(cmd) = rx.recv() {
                    if stop_workers.load(Ordering::SeqCst) {
                        continue;
                    }
                    prepare_one(&cmd, prepare.as_ref(), &mut r);
                }
                r
            })
        })
        .collect();
    drop(rx);

    let mut tail = Tail::new(journal);
    let mut seen: HashSet<(PathBuf, Vec<String>)> = HashSet::new();
    loop {
        // Read once more after the stop, so the count covers the whole build.
        let stopping = stop.load(Ordering::SeqCst);
        for line in tail.read_new().unwrap_or_default() {
            let Some(record) = merge::parse_line(&line) else { continue };
            for e in merge::entries_of(&record).unwrap_or_default() {
                if matches!(e.lang, Lang::C | Lang::Cxx)
                    && e.file.is_file()
                    && seen.insert((e.file.clone(), e.arguments.clone()))
                    && !stopping
                {
                    let _ = tx.send(e.command());
                }
            }
        }
        if stopping {
            break;
        }
        std::thread::sleep(poll);
    }
    stop_workers.store(true, Ordering::SeqCst);
    drop(tx);
    let mut report = WatchReport { tus_seen: seen.len(), ..WatchReport::default() };
    for w in workers {
        match w.join() {
            Ok(r) => {
                report.prepared += r.prepared;
                report.already_cached += r.already_cached;
                report.failed.extend(r.failed);
                report.gone += r.gone;
            }
            Err(_) => report.failed.push("a background worker panicked".to_string()),
        }
    }
    report.left =
        report.tus_seen.saturating_sub(report.prepared + report.already_cached + report.failed.len() + report.gone);
    report
}

/// Prepares one TU and counts the outcome. A file that is gone by now is not a failure: the
/// build deleted it (a probe in a scratch folder), and the merge leaves it out as well.
fn prepare_one(
    cmd: &CompileCommand,
    prepare: &(dyn Fn(&CompileCommand) -> Prepared + Send + Sync),
    r: &mut WatchReport,
) {
    if !cmd.file.is_file() {
        r.gone += 1;
        return;
    }
    match prepare(cmd) {
        Prepared::Stored => r.prepared += 1,
        Prepared::Cached => r.already_cached += 1,
        Prepared::Failed(e) => r.failed.push(format!("{}: {e}", cmd.file.display())),
    }
}

/// Lower this thread's scheduling priority (on Linux, nice values are per thread).
fn lower_priority() {
    // SAFETY: plain system calls on the calling thread.
    unsafe {
        let tid = libc::gettid() as libc::id_t;
        let current = libc::getpriority(libc::PRIO_PROCESS, tid);
        libc::setpriority(libc::PRIO_PROCESS, tid, (current + 10).min(19));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::Mutex;

    #[test]
    fn tail_returns_complete_lines_only() {
        let p = std::env::temp_dir().join(format!("drip-tail-{}", std::process::id()));
        std::fs::write(&p, "one\ntw").expect("write");
        let mut t = Tail::new(p.clone());
        assert_eq!(t.read_new().expect("read"), ["one"]);
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).expect("open");
        f.write_all(b"o\nthree\n").expect("append");
        assert_eq!(t.read_new().expect("read"), ["two", "three"]);
        assert!(t.read_new().expect("read").is_empty());
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn each_new_c_tu_is_prepared_once_while_the_build_runs() {
        let dir = std::env::temp_dir().join(format!("drip-watch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        for f in ["a.c", "b.c"] {
            std::fs::write(dir.join(f), "int x;\n").expect("write");
        }
        let journal = dir.join("journal");
        std::fs::write(&journal, "").expect("journal");
        let line = |args: &[&str]| {
            let r = super::super::record::Record {
                directory: dir.display().to_string(),
                arguments: args.iter().map(|s| s.to_string()).collect(),
            };
            serde_json::to_string(&r).expect("json") + "\n"
        };
        let calls = Arc::new(Mutex::new(Vec::new()));
        let calls2 = Arc::clone(&calls);
        let prepare: PrepareFn = Arc::new(move |c: &CompileCommand| {
            calls2
                .lock()
                .expect("lock")
                .push(c.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
            Prepared::Stored
        });
        let w = Watcher::start(journal.clone(), 1, prepare, Duration::from_millis(10));
        let mut f = std::fs::OpenOptions::new().append(true).open(&journal).expect("open");
        for l in [
            line(&["/usr/bin/cc", "-c", "a.c"]),
            line(&["/usr/bin/cc", "-c", "a.c"]),
            line(&["/usr/bin/cc", "--version"]),
            line(&["/usr/bin/c++", "-c", "x.cpp"]),
            line(&["/usr/bin/cc", "-c", "gone.c"]),
        ] {
            f.write_all(l.as_bytes()).expect("append");
        }
        // Wait until the worker has seen a.c, so b.c below is the only one left at the stop.
        for _ in 0..500 {
            if !calls.lock().expect("lock").is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        f.write_all(line(&["/usr/bin/cc", "-c", "b.c"]).as_bytes()).expect("append");
        let report = w.finish();
        let _ = std::fs::remove_dir_all(&dir);
        // b.c is prepared only when a poll read it before the stop, which the timing of a loaded
        // machine decides: either way it is counted once, prepared or left for drip check.
        let calls = calls.lock().expect("lock").clone();
        assert!(
            calls == ["a.c"] || calls == ["a.c", "b.c"],
            "once per TU, C and C++ only, existing files only: {calls:?}"
        );
        assert_eq!(report.tus_seen, 2, "b.c, written just before the stop, is still counted");
        assert_eq!(report.prepared, calls.len());
        assert_eq!(report.left, 2 - calls.len(), "b.c, when seen only after the stop, is left for drip check");
    }

    #[test]
    fn a_tu_deleted_before_its_turn_is_gone_not_failed() {
        let cmd = CompileCommand {
            directory: std::env::temp_dir(),
            file: std::env::temp_dir().join(format!("drip-gone-{}/probe.c", std::process::id())),
            arguments: vec!["cc".to_string(), "-c".to_string(), "probe.c".to_string()],
        };
        let prepare = |_: &CompileCommand| -> Prepared { panic!("a missing file is not prepared") };
        let mut r = WatchReport::default();
        prepare_one(&cmd, &prepare, &mut r);
        assert_eq!((r.gone, r.failed.len(), r.prepared), (1, 0, 0));
    }
}
