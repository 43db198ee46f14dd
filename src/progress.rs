//! A live progress line on the terminal.
//!
//! Input: counts that the front end and the driver add to as they work (translation units done,
//! functions checked, allocation sites checked). Output: one line on stderr, redrawn in place a
//! few times a second and erased when the run ends; nothing at all when stderr is not a terminal,
//! where the summary line at the end of the run says what there is to say.
//! Invariants: the workers only add to atomics, so drawing never slows them or changes what they
//! compute; nothing else writes to stderr while the line is shown (the front end's and the
//! analysis's messages are printed after each phase, and the drawing stops first).

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug)]
pub struct Progress {
    started: Instant,
    tus_total: AtomicUsize,
    tus_done: AtomicUsize,
    functions_total: AtomicUsize,
    functions_done: AtomicUsize,
    sites: AtomicUsize,
    stop: AtomicBool,
}

impl Progress {
    pub fn new() -> Arc<Progress> {
        Arc::new(Progress {
            started: Instant::now(),
            tus_total: AtomicUsize::new(0),
            tus_done: AtomicUsize::new(0),
            functions_total: AtomicUsize::new(0),
            functions_done: AtomicUsize::new(0),
            sites: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        })
    }

    pub fn start_tus(&self, total: usize) {
        self.tus_total.store(total, Ordering::Relaxed);
    }

    pub fn tu_done(&self) {
        self.tus_done.fetch_add(1, Ordering::Relaxed);
    }

    pub fn start_functions(&self, total: usize) {
        self.functions_total.store(total, Ordering::Relaxed);
    }

    /// `n` functions are checked (or reused from the cache), with `sites` allocation sites.
    pub fn functions_done(&self, n: usize, sites: usize) {
        self.functions_done.fetch_add(n, Ordering::Relaxed);
        self.sites.fetch_add(sites, Ordering::Relaxed);
    }

    /// The line as it stands now.
    pub fn line(&self) -> String {
        let load = |a: &AtomicUsize| a.load(Ordering::Relaxed);
        let mut parts = vec![format!("{}/{} TUs", load(&self.tus_done), load(&self.tus_total))];
        let functions = load(&self.functions_total);
        if functions > 0 {
            parts.push(format!("{}/{} functions checked", load(&self.functions_done), functions));
            parts.push(format!("{} allocation sites", load(&self.sites)));
        }
        format!("drip: {} | {:.1} s", parts.join(" | "), self.started.elapsed().as_secs_f64())
    }
}

/// The thread drawing a `Progress` on stderr.
pub struct Drawing {
    progress: Arc<Progress>,
    thread: std::thread::JoinHandle<()>,
}

/// Draw `progress` on stderr until `Drawing::finish`, if stderr is a terminal.
pub fn draw(progress: &Arc<Progress>) -> Option<Drawing> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let p = Arc::clone(progress);
    let thread = std::thread::Builder::new()
        .name("drip-progress".to_string())
        .spawn(move || {
            let mut width: usize = 0;
            // The first drawing waits a little: a run that ends at once shows nothing.
            std::thread::sleep(Duration::from_millis(250));
            while !p.stop.load(Ordering::Relaxed) {
                let line = p.line();
                let mut e = std::io::stderr().lock();
                // `\r`, the line, and blanks over what a longer previous line left.
                let _ = write!(e, "\r{line}{}", " ".repeat(width.saturating_sub(line.chars().count())));
                let _ = e.flush();
                width = line.chars().count();
                drop(e);
                std::thread::sleep(Duration::from_millis(200));
            }
            if width > 0 {
                let mut e = std::io::stderr().lock();
                let _ = write!(e, "\r{}\r", " ".repeat(width));
                let _ = e.flush();
            }
        })
        .ok()?;
    Some(Drawing { progress: Arc::clone(progress), thread })
}

impl Drawing {
    /// Stop drawing and erase the line.
    pub fn finish(self) {
        self.progress.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_counts_tus_then_functions_and_sites() {
        let p = Progress::new();
        p.start_tus(3);
        p.tu_done();
        assert!(p.line().starts_with("drip: 1/3 TUs | "), "{}", p.line());
        assert!(!p.line().contains("functions"), "no function count before the analysis starts");
        p.tu_done();
        p.tu_done();
        p.start_functions(10);
        p.functions_done(4, 7);
        let line = p.line();
        assert!(line.contains("3/3 TUs | 4/10 functions checked | 7 allocation sites | "), "{line}");
        assert!(line.ends_with(" s"), "{line}");
    }
}
