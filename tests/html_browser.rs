//! The HTML report in a real browser: headless Chromium renders the index and a finding's page
//! (a screenshot of non-trivial size is written) and its DOM has the elements drip wrote, and no
//! script element even where the source holds `<script>`. Skipped, with a message, on a machine
//! without Chromium (Debian: `apt-get install chromium`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The first of Chromium's usual names on PATH.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}

/// Runs headless Chromium on `page` with `what` (`--screenshot=…` or `--dump-dom`); returns
/// its standard output.
fn browse(browser: &Path, profile: &Path, page: &Path, what: &str) -> String {
    let out = Command::new(browser)
        .args([
            "--headless",
            // Root (CI) cannot use Chromium's sandbox.
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1280,900",
            what,
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium");
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A PNG file of some size: a blank page of that window compresses to a few kilobytes.
fn assert_screenshot(png: &Path) {
    let bytes = std::fs::read(png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{} is no PNG", png.display());
    assert!(bytes.len() > 20_000, "{}: only {} bytes", png.display(), bytes.len());
}

#[test]
fn chromium_renders_the_index_and_a_finding() {
    let Some(browser) = chromium() else {
        println!("skipped: chromium is not installed (apt-get install chromium)");
        return;
    };
    let tmp = tempfile::Builder::new().prefix("html-browser-").tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let dir = tmp.path();
    std::fs::write(
        dir.join("a.c"),
        "#include <stdlib.h>\n#include <string.h>\n\nint f(const char *s, int n)\n{\n    char *p = strdup(s); /* <script>document.title='owned'</script> */\n    if (n > 2)\n        return -1;\n    free(p);\n    return 0;\n}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_drip"))
        .current_dir(dir)
        .args(["check", "a.c", "--no-cache", "--format", "html", "-o", "report", "--", "-std=gnu11"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report = dir.join("report");
    let finding = std::fs::read_dir(&report)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("f-"))
        .expect("a finding's page");
    let profile = dir.join("profile");

    let index = report.join("index.html");
    browse(&browser, &profile, &index, &format!("--screenshot={}", dir.join("index.png").display()));
    assert_screenshot(&dir.join("index.png"));
    let dom = browse(&browser, &profile, &index, "--dump-dom");
    assert!(dom.contains("<table class=\"findings\">"), "{dom}");
    assert!(dom.contains("<h1>drip report</h1>"));
    let name = finding.file_name().unwrap().to_string_lossy().into_owned();
    assert!(dom.contains(&format!("<a href=\"{name}\">1</a>")), "{dom}");

    browse(&browser, &profile, &finding, &format!("--screenshot={}", dir.join("finding.png").display()));
    assert_screenshot(&dir.join("finding.png"));
    let dom = browse(&browser, &profile, &finding, "--dump-dom");
    assert!(dom.contains("<title>leak in f — drip</title>"), "the script did not run: {dom}");
    assert!(!dom.contains("<script"), "{dom}");
    assert!(dom.contains("&lt;script&gt;document.title='owned'&lt;/script&gt;"), "{dom}");
    for (step, kind) in [(1, "alloc"), (2, "branch"), (3, "lost")] {
        assert!(dom.contains(&format!("<tr class=\"step k-{kind}\" id=\"s{step}\">")), "step {step}: {dom}");
    }
    assert!(
        dom.contains(
            "<div class=\"bubble\"><span class=\"num\">2</span><span class=\"kind\">branch</span>'n &gt; 2' is true"
        ),
        "{dom}"
    );
}
