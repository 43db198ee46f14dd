//! A live progress line on the terminal.
//!
//! Input: counts that the front end and the driver add to as they work (translation units done,
//! functions checked, allocation sites checked). Output: one line on stderr, during the front end
//! and again during the analysis, redrawn in place a few times a second, cut to the terminal's
//! width, and erased when each phase ends; nothing at all when stderr is not a terminal, where
//! the summary line at the end of the run says what there is to say. Drawing, erasing, the
//! width and the terminal test are `indicatif`'s (its `{wide_msg}` template); drip only updates
//! the message from the atomics.
//! Invariants: the workers only add to atomics, so drawing never slows them or changes what they
//! compute; nothing else writes to stderr while the line is shown (the front end's and the
//! analysis's messages are printed after each phase, and the drawing stops first).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
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

/// The thread updating a `Progress`'s line on stderr through `indicatif`.
pub struct Drawing {
    progress: Arc<Progress>,
    bar: ProgressBar,
    thread: std::thread::JoinHandle<()>,
}

/// How often the line is updated.
const INTERVAL: Duration = Duration::from_millis(200);

/// Draw `progress` on stderr until `Drawing::finish`, if stderr is a terminal (the CLI calls
/// it for the front end and again for the analysis, so both phases show it).
pub fn draw(progress: &Arc<Progress>) -> Option<Drawing> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    draw_to(progress, ProgressDrawTarget::stderr_with_hz(10), Duration::from_millis(250))
}

/// Draw on `target`, the first time after `delay` (a run that ends at once shows nothing).
fn draw_to(progress: &Arc<Progress>, target: ProgressDrawTarget, delay: Duration) -> Option<Drawing> {
    // `{wide_msg}`: the line, cut at the terminal's width, which indicatif reads at each draw
    // (so a resized terminal is followed). A line longer than the terminal would wrap, and the
    // next redraw could no longer erase its first part.
    let style = ProgressStyle::with_template("{wide_msg}").ok()?;
    let bar = ProgressBar::with_draw_target(None, target).with_style(style);
    let (p, b) = (Arc::clone(progress), bar.clone());
    let thread = std::thread::Builder::new()
        .name("drip-progress".to_string())
        .spawn(move || {
            let mut waited = Duration::ZERO;
            while waited < delay && !p.stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(10));
                waited += Duration::from_millis(10);
            }
            while !p.stop.load(Ordering::Relaxed) {
                b.set_message(p.line());
                std::thread::sleep(INTERVAL);
            }
        })
        .ok()?;
    Some(Drawing { progress: Arc::clone(progress), bar, thread })
}

impl Drawing {
    /// Stop drawing and erase the line.
    pub fn finish(self) {
        self.progress.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
        // Ready for the next phase's drawing.
        self.progress.stop.store(false, Ordering::Relaxed);
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A terminal `width` columns wide that keeps what is written on it.
    #[derive(Debug, Clone)]
    struct Screen {
        width: u16,
        written: Arc<Mutex<Vec<String>>>,
    }

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            self.width
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(s)
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            if !s.is_empty() {
                self.written.lock().expect("lock").push(s.to_string());
            }
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Draw one phase of `p` on a screen `width` wide until something is drawn; what was drawn.
    fn phase(p: &Arc<Progress>, width: u16) -> Vec<String> {
        let screen = Screen { width, written: Arc::default() };
        let target = ProgressDrawTarget::term_like_with_hz(Box::new(screen.clone()), 20);
        let d = draw_to(p, target, Duration::ZERO).expect("drawing starts");
        for _ in 0..300 {
            if !screen.written.lock().expect("lock").is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        d.finish();
        let written = screen.written.lock().expect("lock").clone();
        written
    }

    #[test]
    fn the_line_fits_the_width_in_both_phases() {
        let p = Progress::new();
        p.start_tus(3);
        p.tu_done();
        let front = phase(&p, 200);
        assert!(front.iter().any(|l| l.starts_with("drip: 1/3 TUs | ")), "{front:?}");
        // The analysis phase draws too, after the front end's drawing has finished.
        p.tu_done();
        p.tu_done();
        p.start_functions(123_456);
        p.functions_done(4_000, 70_000);
        let full = p.line();
        assert!(full.chars().count() > 40, "{full}");
        let narrow = phase(&p, 40);
        assert!(narrow.iter().any(|l| l.starts_with("drip: 3/3 TUs | 4000/123456 fun")), "{narrow:?}");
        for l in &narrow {
            assert!(l.chars().count() <= 40, "wider than the terminal: {l:?}");
        }
    }

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
