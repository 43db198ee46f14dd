//! `drip check --format html -o DIR`: the pages it writes, their links, the path drawn on the
//! source, escaping of hostile names and text, the rule for the output directory, and
//! determinism. Each test writes its own small project into a temporary directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn drip() -> Command {
    Command::new(env!("CARGO_BIN_EXE_drip"))
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("html-").tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("scratch dir")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write file");
    p
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// An allocator wrapper in one file and a caller in another that loses its block on one branch,
/// so the path has a step in another file.
const UTIL: &str = "#include <stdlib.h>
#include <string.h>

char *xstrdup(const char *s)
{
    char *p = malloc(strlen(s) + 1);
    if (!p)
        abort();
    strcpy(p, s);
    return p;
}
";

const USE: &str = "#include <stdlib.h>
char *xstrdup(const char *s);

int use(const char *s, int flag)
{
    char *p = xstrdup(s);
    if (flag > 3)
        return -1;
    free(p);
    return 0;
}

void twice(const char *s)
{
    char *q = xstrdup(s);
    free(q);
    if (s[0] == 'x')
        free(q);
}
";

const CLEAN_USE: &str = "#include <stdlib.h>
char *xstrdup(const char *s);

int use(const char *s, int flag)
{
    char *p = xstrdup(s);
    free(p);
    return flag;
}
";

fn project(dir: &Path) {
    write(dir, "util.c", UTIL);
    write(dir, "use.c", USE);
}

/// `drip check use.c util.c` in `dir` with `args` after the files.
fn check(dir: &Path, args: &[&str]) -> Output {
    drip()
        .current_dir(dir)
        .args(["check", "use.c", "util.c", "--no-cache"])
        .args(args)
        .args(["--", "-std=gnu11"])
        .output()
        .expect("run drip")
}

/// Every file of a directory (not recursive), by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .expect("read report dir")
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap_or_default())
        })
        .collect()
}

/// The values of attribute `attr` in `page`, in order.
fn attrs(page: &str, attr: &str) -> Vec<String> {
    let key = format!(" {attr}=\"");
    page.match_indices(&key)
        .map(|(i, _)| {
            let rest = &page[i + key.len()..];
            rest[..rest.find('"').unwrap()].to_string()
        })
        .collect()
}

/// Text as maud escapes it.
fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// From the row of line `line` in file section `fi` to the next line's row.
fn after_line(page: &str, fi: usize, line: u64) -> &str {
    let start =
        page.find(&format!("<tr id=\"f{fi}-L{line}\"")).unwrap_or_else(|| panic!("no line {line} in section {fi}"));
    let rest = &page[start + 1..];
    &rest[..rest.find(&format!("<tr id=\"f{fi}-L")).unwrap_or(rest.len())]
}

/// Every link of every page leads somewhere: a page of the report, or an element of its page.
fn assert_links_resolve(dir: &Path) {
    let pages = files(dir);
    for (name, bytes) in pages.iter().filter(|(n, _)| n.ends_with(".html")) {
        let page = String::from_utf8(bytes.clone()).expect("UTF-8 page");
        let ids = attrs(&page, "id");
        for href in attrs(&page, "href") {
            match href.strip_prefix('#') {
                Some(id) => assert!(ids.contains(&id.to_string()), "{name}: #{id} names no element"),
                None => assert!(pages.contains_key(&href), "{name}: {href} is no page of the report"),
            }
        }
        assert!(!page.contains("http://") && !page.contains("https://") && !page.contains("<script"), "{name}");
    }
}

#[test]
fn html_pages_link_and_draw_every_step_at_its_line() {
    let tmp = scratch();
    let dir = tmp.path();
    project(dir);
    let json = check(dir, &["--format", "json"]);
    let sarif = check(dir, &["--format", "sarif"]);
    let out = check(dir, &["--format", "html", "-o", "report"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let summary = stderr(&out).lines().last().unwrap_or_default().to_string();
    assert!(summary.starts_with("drip: 2 TUs"), "{summary}");

    let json: Value = serde_json::from_slice(&json.stdout).expect("json");
    let sarif: Value = serde_json::from_slice(&sarif.stdout).expect("sarif");
    let diags = json["diagnostics"].as_array().unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(diags.len(), 2, "a leak and a double free");
    let report = dir.join("report");
    let index = std::fs::read_to_string(report.join("index.html")).expect("index.html");
    assert!(index.contains(&html_escape(&summary)), "the summary line as stderr has it");
    assert!(index.contains("2 reported, 0 suppressed."), "{index}");
    let mut pages = vec!["index.html".to_string()];
    for (d, r) in diags.iter().zip(results) {
        // Named by the fingerprint SARIF and baselines carry.
        let name = format!("f-{}.html", r["partialFingerprints"]["dripFingerprint/v2"].as_str().unwrap());
        assert_eq!(index.matches(&format!("href=\"{name}\"")).count(), 2, "number and message link to {name}");
        let page = std::fs::read_to_string(report.join(&name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(page.contains(&html_escape(d["message"].as_str().unwrap())));
        assert!(page.contains("href=\"index.html\""));
        // Sections: the finding's own file first, then others as the path reaches them.
        let mut sections: Vec<&str> = vec![d["loc"]["file"].as_str().unwrap()];
        for (k, note) in d["path"].as_array().unwrap().iter().enumerate() {
            let file = note["loc"]["file"].as_str().unwrap();
            if !sections.contains(&file) {
                sections.push(file);
            }
            let fi = sections.iter().position(|f| *f == file).unwrap();
            let row = after_line(&page, fi, note["loc"]["line"].as_u64().unwrap());
            let marker = &row[row
                .find(&format!("id=\"s{}\"", k + 1))
                .unwrap_or_else(|| panic!("{name}: step {} ({note}) is not under its line: {row}", k + 1))..];
            let kind = note["kind"].as_str().unwrap();
            assert!(row.contains(&format!("class=\"step k-{kind}\" id=\"s{}\"", k + 1)), "{row}");
            assert!(marker.contains(&html_escape(note["message"].as_str().unwrap())), "{marker}");
        }
        pages.push(name);
    }
    // The leak's path goes through the wrapper in util.c, shown as an excerpt of that file.
    let leak = std::fs::read_to_string(report.join(&pages[1])).unwrap();
    assert!(leak.contains("<code>util.c</code> (step 2, in another file)"), "{leak}");
    // The wrapper's allocation, underlined as the step it is.
    assert!(
        after_line(&leak, 1, 6).contains("char *p = <span class=\"u u-alloc\">malloc(strlen(s) + 1)</span>;"),
        "{}",
        after_line(&leak, 1, 6)
    );
    assert!(!leak.contains("id=\"f1-L2\""), "only lines near the step");
    assert!(after_line(&leak, 0, 7).contains("'flag &gt; 3' is true"));
    // The marker names exactly the pages written.
    let marker = std::fs::read_to_string(report.join(".drip-html")).unwrap();
    assert_eq!(marker.lines().skip(1).collect::<Vec<_>>(), pages);
    let mut on_disk: Vec<String> = files(&report).into_keys().filter(|n| n != ".drip-html").collect();
    on_disk.sort();
    pages.sort();
    assert_eq!(on_disk, pages);
    assert_links_resolve(&report);
}

#[test]
fn html_escapes_hostile_file_names_and_source() {
    let tmp = scratch();
    let dir = tmp.path();
    let name = "x<y\"z'.c";
    write(
        dir,
        name,
        "#include <stdlib.h>\n#include <string.h>\nint f(const char *s) {\n    char *p = strdup(s); /* <script>alert(1)</script> \u{202e} */\n    if (strcmp(s, \"</td><script>\") == 0)\n        return 1;\n    free(p);\n    return 0;\n}\n",
    );
    let out = drip()
        .current_dir(dir)
        .args(["check", name, "--no-cache", "--format", "html", "-o", "out", "--", "-std=gnu11"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let pages = files(&dir.join("out"));
    assert_eq!(pages.len(), 3, "index, one finding, the marker: {:?}", pages.keys());
    for (n, bytes) in &pages {
        let page = String::from_utf8_lossy(bytes);
        assert!(!page.to_lowercase().contains("<script"), "{n}: {page}");
        assert!(!page.contains("x<y") && !page.contains('\u{202e}'), "{n}");
    }
    let finding = pages.iter().find(|(n, _)| n.starts_with("f-")).map(|(_, b)| String::from_utf8_lossy(b)).unwrap();
    assert!(finding.contains("<code>x&lt;y&quot;z'.c:4:15</code>"), "{finding}");
    assert!(after_line(&finding, 0, 4).contains("/* &lt;script&gt;alert(1)&lt;/script&gt; \\u{202e} */"));
    assert!(
        after_line(&finding, 0, 5).contains("(s, &quot;&lt;/td&gt;&lt;script&gt;&quot;)"),
        "string literal: {finding}"
    );
    // Scripts could not run even if escaping failed.
    assert!(finding.contains("content=\"default-src 'none'; style-src 'unsafe-inline'\""));
    let index = String::from_utf8_lossy(&pages["index.html"]);
    assert!(index.contains("<code>x&lt;y&quot;z'.c</code> (1)"), "{index}");
}

#[test]
fn html_output_directory_rule() {
    let tmp = scratch();
    let dir = tmp.path();
    project(dir);
    let before_analysis = |o: &Output| !stderr(o).contains(" TUs, ");

    // No -o: a usage error.
    let o = check(dir, &["--format", "html"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--format html needs -o DIR"), "{}", stderr(&o));

    // A file: refused before the analysis, left alone.
    let file = write(dir, "notes.txt", "mine\n");
    let o = check(dir, &["--format", "html", "-o", "notes.txt"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not a directory") && before_analysis(&o), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine\n");

    // A directory of someone else's files: refused, nothing added or removed.
    let theirs = dir.join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    write(&theirs, "index.html", "their page");
    let o = check(dir, &["--format", "html", "-o", "theirs"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("holds files drip did not write") && before_analysis(&o), "{}", stderr(&o));
    assert_eq!(files(&theirs), BTreeMap::from([("index.html".to_string(), b"their page".to_vec())]));
    // A marker that is a link to a real marker elsewhere does not make it drip's.
    std::os::unix::fs::symlink(dir.join("elsewhere/.drip-html"), theirs.join(".drip-html")).unwrap();
    std::fs::create_dir(dir.join("elsewhere")).unwrap();
    write(&dir.join("elsewhere"), ".drip-html", "drip html report, v1\nindex.html\n");
    assert_eq!(check(dir, &["--format", "html", "-o", "theirs"]).status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(theirs.join("index.html")).unwrap(), "their page");

    // An empty directory, and a new one below a new one, are fine.
    std::fs::create_dir(dir.join("empty")).unwrap();
    assert_eq!(check(dir, &["--format", "html", "-o", "empty"]).status.code(), Some(1));
    assert!(dir.join("empty/index.html").is_file());
    let o = check(dir, &["--format", "html", "-o", "new/report"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let report = dir.join("new/report");
    let first = files(&report);
    assert_eq!(first.len(), 4, "index, two findings, marker");

    // Things that are not drip's in drip's directory: a note, a file with a page's name the
    // marker does not list, a link at a page's name, a marker entry outside the directory.
    write(&report, "my-notes.txt", "keep\n");
    write(&report, "f-0123456789abcdef.html", "keep\n");
    let outside = write(dir, "outside.html", "outside\n");
    std::fs::remove_file(report.join("index.html")).unwrap();
    std::os::unix::fs::symlink(&outside, report.join("index.html")).unwrap();
    let marker = std::fs::read_to_string(report.join(".drip-html")).unwrap();
    std::fs::write(report.join(".drip-html"), format!("{marker}../outside.html\n")).unwrap();

    // Fix the leak and the double free: the rewrite drops their pages and nothing else.
    write(dir, "use.c", CLEAN_USE);
    let o = check(dir, &["--format", "html", "-o", "new/report"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let second = files(&report);
    let names: Vec<&str> = second.keys().map(String::as_str).collect();
    assert_eq!(names, [".drip-html", "f-0123456789abcdef.html", "index.html", "my-notes.txt"]);
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside\n", "not written through the link");
    assert!(!std::fs::symlink_metadata(report.join("index.html")).unwrap().file_type().is_symlink());
    assert!(String::from_utf8_lossy(&second["index.html"]).contains("No findings."));
    assert_eq!(String::from_utf8_lossy(&second[".drip-html"]), "drip html report, v1\nindex.html\n");
}

#[test]
fn html_is_identical_across_thread_counts() {
    let tmp = scratch();
    let dir = tmp.path();
    project(dir);
    write(dir, "more.c", "#include <stdlib.h>\nvoid g(int n) {\n    char *a = malloc(n);\n    char *b = malloc(n);\n    if (!a || !b)\n        return;\n    free(a);\n    free(b);\n}\n");
    let run = |jobs: &str, to: &str| {
        let o = drip()
            .current_dir(dir)
            .args(["check", "use.c", "util.c", "more.c", "--no-cache", "-j", jobs, "--format", "html", "-o", to])
            .args(["--", "-std=gnu11"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        files(&dir.join(to))
    };
    let one = run("1", "j1");
    let two = run("2", "j2");
    assert!(one.len() >= 5, "{:?}", one.keys());
    assert_eq!(one, two);
    // And again into the same directory: the same pages.
    assert_eq!(run("2", "j1"), one);
}

#[test]
fn html_counts_suppressed_and_baseline_hidden_findings() {
    let tmp = scratch();
    let dir = tmp.path();
    write(dir, "util.c", UTIL);
    write(
        dir,
        "use.c",
        &USE.replace("char *p = xstrdup(s);", "char *p = xstrdup(s); // drip: ignore[leak] -- <kept> on purpose"),
    );
    let o = check(dir, &["--format", "html", "-o", "first", "--write-baseline", "base.sarif"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let index = std::fs::read_to_string(dir.join("first/index.html")).unwrap();
    assert!(index.contains("1 reported, 1 suppressed."), "{index}");
    assert!(index.contains("<tr class=\"suppressed\">"), "{index}");
    assert!(index.contains("suppressed by a drip: ignore comment: &lt;kept&gt; on purpose"), "{index}");

    // The double free is in the baseline: counted, on no page; the suppressed leak stays.
    let o = check(dir, &["--format", "html", "-o", "second", "--baseline", "base.sarif"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let index = std::fs::read_to_string(dir.join("second/index.html")).unwrap();
    assert!(index.contains("0 reported, 1 suppressed, 1 hidden by the baseline (on no page)."), "{index}");
    assert!(index.contains("1 suppressed, 1 hidden by the baseline</div>"), "the summary line: {index}");
    assert_eq!(files(&dir.join("second")).len(), 3, "index, the suppressed leak's page, the marker");
}
