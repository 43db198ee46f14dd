//! Parsing in worker processes, so that a TU that crashes libclang or parses forever costs that
//! TU, not the run.
//!
//! Input: compile commands, handed one at a time to a `Parser`. Output: the TU's `TuResult` and
//! manifest, exactly what `parse_tu` returns in this process; or, when the worker died on the TU
//! (a signal: libclang's parser overflows its stack on 50,000 nested `!`) or ran past the
//! `tu-time-ms` budget (a 20,000-branch `else if` chain parses in about 20 s), a failed
//! `TuResult` whose one error names the signal or the budget. Past the run's deadline
//! (`run-time-ms`) no TU is parsed, and a parse still running then has its worker killed: a
//! result marked `cut`, whose one error says so.
//! Invariants:
//! - A worker is `drip` itself (`std::env::current_exe`) run as `drip __parse-worker`: it reads
//!   requests on stdin and answers on what was its stdout, one length-prefixed postcard frame
//!   each, in order. It has no cache, no progress line and no state between TUs besides
//!   libclang's, so a TU parses to the same result in any worker, or in this process.
//! - Each `Parser` owns at most one worker, started on its first TU and reused for the next
//!   ones (a start costs loading libclang); the front end has one `Parser` per thread, so there
//!   are never more workers than `-j`. A worker that died or was killed is waited for and
//!   replaced on the next TU; when its `Parser` is dropped, a worker's stdin is closed, which
//!   ends it, and it is waited for (killed after a second if it does not end).
//! - The worker's stdout is moved to a private descriptor before anything runs, and descriptor 1
//!   then points at stderr: whatever libclang or a panic prints reaches the user's stderr and
//!   can never corrupt a frame.
//! - A crash ends a worker the same way whatever state it is in: by its signal, silently. In
//!   drip's own process the 50,000 `!` kill the run with SIGSEGV; in a fresh worker, libclang's
//!   crash recovery (`CrashRecoveryContext`) caught the same overflow on its first TU, printed a
//!   dump of the command and returned `CXError_Crashed`, and caught it no longer once the worker
//!   had parsed another TU (libclang 19, measured). Output must not depend on which worker got
//!   the TU, and a process that went on after a recovered crash is not one to trust with the
//!   next TU, so workers run with `LIBCLANG_DISABLE_CRASH_RECOVERY` and with SIGSEGV and SIGBUS
//!   at their default action (Rust's handler would print a message naming a thread id).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};
use serde::{Deserialize, Serialize};

use super::{parse_tu, TuMessage, TuResult};
use crate::cache::Digest;
use crate::compdb::CompileCommand;

/// The hidden command that makes `drip` a parse worker.
pub const WORKER_COMMAND: &str = "__parse-worker";

/// How the front end parses: in worker processes started from `exe`, each TU within `budget`.
#[derive(Clone, Debug)]
pub struct Isolation {
    /// drip's own executable.
    pub exe: PathBuf,
    /// Wall-clock time one TU's parse and lowering may take (`None`: no limit).
    pub budget: Option<Duration>,
}

#[derive(Serialize, Deserialize)]
struct Request {
    directory: PathBuf,
    file: PathBuf,
    arguments: Vec<String>,
    manifest: bool,
}

type Manifest = Option<Vec<(PathBuf, Digest)>>;

// The worker's answer is one frame: the length of the result's encoding for the cache
// (`cache::encode`, 8 bytes little-endian), that encoding, then the manifest's. drip stores the
// result's bytes as they are instead of encoding the result a second time (and serde would
// write a `Vec<u8>` field byte by byte: 74 M instructions for SQLite's 7 MB).

/// A result's cache encoding, where it lies in the frame it came in (no copy of a TU's IR).
pub(super) struct Encoded {
    frame: Vec<u8>,
    range: std::ops::Range<usize>,
}

impl Encoded {
    pub(super) fn bytes(&self) -> &[u8] {
        &self.frame[self.range.clone()]
    }
}

/// What `Parser::parse` gives: the result, the manifest, and the result's cache encoding when
/// it came from a worker.
pub(super) type Parsed = (TuResult, Manifest, Option<Encoded>);

/// Parses TUs, in this process (`isolation` `None`: the library's callers, the unit tests) or
/// in one worker process at a time.
pub(super) struct Parser<'a> {
    isolation: Option<&'a Isolation>,
    /// The run's deadline (`run-time-ms`): past it nothing is parsed, and a parse in a worker is
    /// stopped at it. One in this process cannot be stopped (libclang has no way to interrupt it).
    run_deadline: Option<Instant>,
    worker: Option<Worker>,
    /// Why no worker could be started, once that happened: the rest is parsed in this process.
    cannot_start: Option<String>,
}

impl<'a> Parser<'a> {
    pub(super) fn new(isolation: Option<&'a Isolation>, run_deadline: Option<Instant>) -> Parser<'a> {
        Parser { isolation, run_deadline, worker: None, cannot_start: None }
    }

    /// `parse_tu`'s answer for `cmd`, from the worker when there is one.
    pub(super) fn parse(
        &mut self,
        cmd: &CompileCommand,
        argv: &[String],
        dropped: &[String],
        manifest: bool,
    ) -> Parsed {
        if self.run_deadline.is_some_and(|d| Instant::now() >= d) {
            return (cut(cmd, dropped, "before this file was parsed"), None, None);
        }
        let Some(iso) = self.isolation.filter(|_| self.cannot_start.is_none()) else {
            let (r, m) = parse_tu(cmd, argv, dropped, manifest);
            return (r, m, None);
        };
        if self.worker.is_none() {
            match Worker::start(&iso.exe) {
                Ok(w) => self.worker = Some(w),
                Err(e) => {
                    // Still parsed, as before isolation existed; `-v` says why it was not isolated.
                    let why = format!("cannot start a parse worker ({}: {e})", iso.exe.display());
                    self.cannot_start = Some(why.clone());
                    let (mut r, m) = parse_tu(cmd, argv, dropped, manifest);
                    r.messages.push(TuMessage::new(
                        &cmd.file,
                        format!("note: {why}: parsed in drip's own process, without the tu-time-ms budget"),
                    ));
                    return (r, m, None);
                }
            }
        }
        let worker = self.worker.as_mut().expect("started above");
        match worker.parse(cmd, manifest, iso.budget, self.run_deadline) {
            Ok(answer) => answer,
            Err(end) => {
                // The worker is gone (or in an unknown state): the next TU gets a new one.
                if let Some(w) = self.worker.take() {
                    w.kill();
                }
                let text = match end {
                    End::RunOut => return (cut(cmd, dropped, "while this file was parsed, and its parse was stopped"), None, None),
                    End::OverBudget(b) => format!(
                        "error: parsing this file took longer than the tu-time-ms budget ({} ms) and was stopped; it is not analysed",
                        b.as_millis()
                    ),
                    End::Died(how) => {
                        format!("error: the parse of this file crashed ({how}, in libclang or drip's lowering); it is not analysed")
                    }
                };
                let mut r = TuResult::new(cmd, dropped);
                r.failed = true;
                r.messages.push(TuMessage::new(&cmd.file, text));
                (r, None, None)
            }
        }
    }
}

/// The result of a TU the run's deadline left unparsed, or stopped while parsed (`when`):
/// failed, so that nothing stores it, and `cut`, so that it is reported with the run's budget.
fn cut(cmd: &CompileCommand, dropped: &[String], when: &str) -> TuResult {
    let mut r = TuResult::new(cmd, dropped);
    r.failed = true;
    r.cacheable = false;
    r.cut = true;
    r.messages.push(TuMessage::new(
        &cmd.file,
        format!("error: not analysed: the run ran out of its time budget (run-time-ms) {when}"),
    ));
    r
}

/// Why a worker gave no answer.
enum End {
    OverBudget(Duration),
    /// The run's deadline came first.
    RunOut,
    /// How it ended: `SIGSEGV`, `exit status 101`, or what broke the pipe.
    Died(String),
}

struct Worker {
    child: Child,
    /// `None` once closed, which ends the worker.
    stdin: Option<ChildStdin>,
    /// The frames the reader thread takes off the worker's stdout; disconnected when it ends.
    frames: Receiver<Vec<u8>>,
}

impl Worker {
    fn start(exe: &Path) -> std::io::Result<Worker> {
        let mut child = Command::new(exe)
            .arg(WORKER_COMMAND)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let (Some(stdin), Some(mut stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other("no pipes to the worker"));
        };
        let (tx, frames) = crossbeam_channel::bounded(1);
        // A thread of its own, so that waiting for an answer can time out (`recv_timeout`).
        let spawned = std::thread::Builder::new().name("drip-parse-reader".into()).spawn(move || {
            while let Ok(Some(frame)) = read_frame(&mut stdout) {
                if tx.send(frame).is_err() {
                    break;
                }
            }
        });
        if let Err(e) = spawned {
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
        Ok(Worker { child, stdin: Some(stdin), frames })
    }

    fn parse(
        &mut self,
        cmd: &CompileCommand,
        manifest: bool,
        budget: Option<Duration>,
        run_deadline: Option<Instant>,
    ) -> Result<Parsed, End> {
        let req = Request {
            directory: cmd.directory.clone(),
            file: cmd.file.clone(),
            arguments: cmd.arguments.clone(),
            manifest,
        };
        let bytes = postcard::to_stdvec(&req).map_err(|e| End::Died(format!("cannot encode the request: {e}")))?;
        let Some(stdin) = self.stdin.as_mut() else { return Err(End::Died("closed".to_string())) };
        if write_frame(stdin, &[&bytes]).is_err() {
            return Err(End::Died(self.status()));
        }
        let own = budget.map(|b| Instant::now() + b);
        let until = match (own, run_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let frame = match until {
            Some(t) => match self.frames.recv_deadline(t) {
                Ok(f) => f,
                // Both past: the run's deadline is the one that ends the run, so it is named.
                Err(RecvTimeoutError::Timeout) if run_deadline.is_some_and(|d| d <= t) => return Err(End::RunOut),
                Err(RecvTimeoutError::Timeout) => return Err(End::OverBudget(budget.unwrap_or_default())),
                Err(RecvTimeoutError::Disconnected) => return Err(End::Died(self.status())),
            },
            None => self.frames.recv().map_err(|_| End::Died(self.status()))?,
        };
        let unreadable = |e: String| End::Died(format!("an answer drip cannot read: {e}"));
        let len = frame.get(..8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")) as usize);
        let range = len.and_then(|n| Some(8..8usize.checked_add(n)?)).filter(|r| r.end <= frame.len());
        let range = range.ok_or_else(|| unreadable("a torn answer".to_string()))?;
        let result: TuResult = postcard::from_bytes(&frame[range.clone()]).map_err(|e| unreadable(e.to_string()))?;
        let inputs: Manifest = postcard::from_bytes(&frame[range.end..]).map_err(|e| unreadable(e.to_string()))?;
        Ok((result, inputs, Some(Encoded { frame, range })))
    }

    /// How the worker ended, once its stdout closed.
    fn status(&mut self) -> String {
        match self.child.wait() {
            Ok(s) => {
                use std::os::unix::process::ExitStatusExt;
                match (s.signal(), s.code()) {
                    (Some(sig), _) => signal_name(sig),
                    (None, Some(code)) => format!("exit status {code}"),
                    (None, None) => s.to_string(),
                }
            }
            Err(e) => format!("lost: {e}"),
        }
    }

    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // An idle worker ends by itself at the end of its requests (a profiler running it then
        // writes its data); one still parsing (this thread is unwinding) is killed after a while.
        drop(self.stdin.take());
        for _ in 0..200 {
            match self.child.try_wait() {
                Ok(Some(_)) => return,
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(_) => break,
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `SIGSEGV` for 11: the names a user looks up, the number for others.
fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGABRT => "SIGABRT",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGSYS => "SIGSYS",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGTERM => "SIGTERM",
        // The usual sender is the kernel's out-of-memory killer.
        libc::SIGKILL => "SIGKILL, perhaps out of memory",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}

/// One frame made of `parts`, written one after the other.
fn write_frame(w: &mut impl Write, parts: &[&[u8]]) -> std::io::Result<()> {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    w.write_all(&(len as u64).to_le_bytes())?;
    for p in parts {
        w.write_all(p)?;
    }
    w.flush()
}

/// The next frame, `None` at a clean end of the stream.
fn read_frame(r: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 8];
    let mut got = 0;
    while got < len.len() {
        match r.read(&mut len[got..]) {
            // The end between two frames is the clean one.
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "a truncated frame")),
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let len = u64::from_le_bytes(len);
    let mut buf = Vec::new();
    r.take(len).read_to_end(&mut buf)?;
    if buf.len() as u64 != len {
        return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "a truncated frame"));
    }
    Ok(Some(buf))
}

/// `drip __parse-worker`: answer parse requests until stdin closes. Exit code 0 at the end of
/// the requests, 3 when the protocol breaks (not meant to be run by hand).
pub fn worker_main() -> i32 {
    super::prepare_process();
    // Before libclang is used (it reads the variable when an index is created) and before any
    // thread starts (`set_var`).
    std::env::set_var("LIBCLANG_DISABLE_CRASH_RECOVERY", "1");
    // SAFETY: resets two signals to their default action, which needs no handler code.
    unsafe {
        libc::signal(libc::SIGSEGV, libc::SIG_DFL);
        libc::signal(libc::SIGBUS, libc::SIG_DFL);
    }
    // The frames go to a private copy of stdout; descriptor 1 becomes stderr, so that nothing
    // printed in this process (libclang, a panic message) can corrupt them.
    // SAFETY: plain descriptor calls on descriptors this process owns; `proto` is owned by the
    // `File` from here on.
    let out = unsafe {
        let proto = libc::dup(1);
        if proto < 0 || libc::dup2(2, 1) < 0 {
            return crate::cli::EXIT_INTERNAL;
        }
        <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(proto)
    };
    #[cfg(target_os = "linux")]
    // SAFETY: `prctl` with these arguments only sets this process's parent-death signal.
    unsafe {
        // Not outlive drip if it is killed: the worker would parse on for nobody.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
    // Parsing and lowering recurse over the AST: the same large stack as the front end's threads.
    let serve = std::thread::Builder::new().stack_size(256 << 20).spawn(move || serve(out));
    match serve.map(|t| t.join()) {
        Ok(Ok(Ok(()))) => crate::cli::EXIT_CLEAN,
        _ => crate::cli::EXIT_INTERNAL,
    }
}

fn serve(out: std::fs::File) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(out);
    let mut input = std::io::stdin().lock();
    while let Some(frame) = read_frame(&mut input)? {
        let req: Request = postcard::from_bytes(&frame).map_err(std::io::Error::other)?;
        let cmd = CompileCommand { directory: req.directory, file: req.file, arguments: req.arguments };
        let (argv, dropped) = super::compile_argv(&cmd);
        let (result, inputs) = parse_tu(&cmd, &argv, &dropped, req.manifest);
        let result = crate::cache::encode(&result).ok_or_else(|| std::io::Error::other("cannot encode a result"))?;
        let inputs = postcard::to_stdvec(&inputs).map_err(std::io::Error::other)?;
        write_frame(&mut out, &[&(result.len() as u64).to_le_bytes(), &result[..], &inputs])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_a_torn_one_is_an_error() {
        let mut buf = Vec::new();
        write_frame(&mut buf, &[b"fi", b"rst"]).expect("write");
        write_frame(&mut buf, &[]).expect("write");
        let mut r = buf.as_slice();
        assert_eq!(read_frame(&mut r).expect("read"), Some(b"first".to_vec()));
        assert_eq!(read_frame(&mut r).expect("read"), Some(Vec::new()));
        assert_eq!(read_frame(&mut r).expect("read"), None, "a clean end");
        // A worker killed while writing: a length with fewer bytes behind it.
        let mut torn = Vec::new();
        write_frame(&mut torn, &[b"0123456789"]).expect("write");
        torn.truncate(12);
        assert!(read_frame(&mut torn.as_slice()).is_err());
        assert!(read_frame(&mut [1u8, 2].as_slice()).is_err(), "half a length is torn too");
    }

    #[test]
    fn signals_are_named() {
        assert_eq!(signal_name(libc::SIGSEGV), "SIGSEGV");
        assert!(signal_name(libc::SIGKILL).starts_with("SIGKILL"));
        assert_eq!(signal_name(64), "signal 64");
    }
}
