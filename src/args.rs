//! The command line's definition: every subcommand and option of `drip`, declared once with
//! clap's derive, from which `--help`, the shell completions (`drip completions SHELL`) and the
//! man pages (`drip manpage`) are all generated.
//!
//! Input: the words of `argv`, which need not be UTF-8. Output: the parsed `Cli` with its
//! `ArgMatches` (for what the derive loses, such as the order of `--enable`/`--disable`), or a
//! clap error: a usage error (exit 2), or the help text to print (exit 0).
//! Invariants: paths are kept as the bytes given (`PathBuf`, `OsString`); a value that must be
//! text is checked by `Utf8`, whose error names the option and shows the word's bytes; a check
//! that involves several options (html needs `-o`) or needs drip's own message is `cli`'s. The
//! words after `drip capture … --` are the build's and never parsed (see `parse`). The parse
//! worker (`drip __parse-worker`) is not in the definition: `cli` starts it before any parse.

use clap::builder::{EnumValueParser, OsStringValueParser, PossibleValue, StringValueParser, TypedValueParser};
use clap::error::ErrorKind;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

const EXIT_CODES: &str = "\
Exit codes: 0 no findings, 1 findings, 2 usage or input error, 3 internal error (the highest that
applies wins).";

#[derive(Parser, Debug)]
#[command(
    name = "drip",
    version,
    about = "Finds memory leaks and double frees in C and C++ code",
    long_about = "Finds memory leaks and double frees in C and C++ code, across the whole program described \
                  by a compile database (compile_commands.json).",
    after_help = EXIT_CODES,
    // drip's version text names the libclang loaded at run time: printed by `cli`.
    disable_version_flag = true,
    arg_required_else_help = true,
    max_term_width = 100
)]
pub struct Cli {
    /// Print the version, the commit drip was built from and the libclang it uses
    #[arg(short = 'V', long, global = true)]
    pub version: bool,

    /// When to colour the text report and messages (default: auto)
    #[arg(long, global = true, value_name = "WHEN", value_parser = Utf8(EnumValueParser::<ColorWhen>::new()))]
    pub color: Option<ColorWhen>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check a program (a compile database, or source files) for leaks and double frees
    #[command(
        long_about = "Check a program for leaks and double frees.\n\n\
            The program is a compile database (-p, or compile_commands.json found in . and then \
            build/) or the source files given, compiled with the flags after `--`.",
        after_help = EXIT_CODES
    )]
    Check(CheckArgs),

    /// Print drip's intermediate representation of a program (for debugging drip)
    #[command(name = "dump-ir")]
    DumpIr(DumpIrArgs),

    /// Run a build with drip's compiler wrappers and record compile_commands.json
    #[command(
        long_about = "Run the build with drip's compiler wrappers ahead of the real compilers and \
            record every compile into compile_commands.json (merged with the one there). With \
            --check, then run `drip check` on it: the words between --check and `--` are check's \
            options.",
        override_usage = "drip capture [OPTIONS] -- <BUILD>...\n       \
                          drip capture [OPTIONS] --check [CHECK OPTIONS]... -- <BUILD>...",
        after_help = "Exit status: the build's if it failed; else drip check's with --check; else 0 \
                      (2: bad options, or the database cannot be written)."
    )]
    Capture(CaptureArgs),

    /// Print a completion script for SHELL (bash, elvish, fish, powershell, zsh)
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },

    /// Print the man page drip(1), or write drip's man pages (one per command) into DIR
    Manpage {
        /// Write drip.1 and a page per command (drip-check.1, drip-capture.1...) into this directory
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// The options of `drip check` (and of `drip capture --check`).
#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// The compile database, or the directory holding compile_commands.json
    #[arg(short = 'p', value_name = "PATH", value_parser = OsStringValueParser::new().map(PathBuf::from))]
    pub compdb: Option<PathBuf>,

    /// Source files to check instead of a compile database (compiled with the flags after `--`)
    #[arg(value_name = "FILE", value_parser = OsStringValueParser::new().map(PathBuf::from))]
    pub files: Vec<PathBuf>,

    /// Compiler flags for the FILEs
    #[arg(last = true, value_name = "COMPILER FLAGS", value_parser = OsStringValueParser::new())]
    pub flags: Vec<OsString>,

    /// Report format (default: text)
    // No `default_value`: clap would name an option with a default in every usage error.
    #[arg(long, value_name = "FORMAT", value_parser = Utf8(EnumValueParser::<Format>::new()))]
    pub format: Option<Format>,

    /// Write the findings to FILE instead of standard output (html: to the directory FILE, which
    /// must be new, empty, or an earlier drip HTML report)
    #[arg(short = 'o', long = "output", value_name = "FILE",
          value_parser = OsStringValueParser::new().map(PathBuf::from))]
    pub output: Option<PathBuf>,

    /// Report only findings not in FILE, a SARIF log of an earlier run (the exit code counts only
    /// the new ones)
    #[arg(long, value_name = "FILE", value_parser = OsStringValueParser::new().map(PathBuf::from))]
    pub baseline: Option<PathBuf>,

    /// Write every finding of this run to FILE (SARIF), for a later --baseline
    #[arg(long, value_name = "FILE", value_parser = OsStringValueParser::new().map(PathBuf::from))]
    pub write_baseline: Option<PathBuf>,

    /// Paths and fingerprints in SARIF, Code Quality reports and baselines are relative to DIR
    /// (default: the directory holding compile_commands.json)
    #[arg(long, value_name = "DIR", value_parser = OsStringValueParser::new().map(PathBuf::from))]
    pub source_root: Option<PathBuf>,

    /// Worker threads (default: all cores)
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = Utf8(positive))]
    pub jobs: Option<usize>,

    /// Print FastCheck-style statistics (allocation sites per category, times)
    #[arg(long)]
    pub stats: bool,

    /// Also report never-freed sites in main, sites stored outside locals, unknown and
    /// over-budget sites
    #[arg(long)]
    pub all_categories: bool,

    /// C++: also follow the exception a call may throw out of the function, between an
    /// allocation and its release (off by default: noisy on most code)
    #[arg(long)]
    pub exceptions: bool,

    /// Incremental cache (default: .drip/ next to compile_commands.json, or in the current
    /// directory for files given on the command line)
    #[arg(long, value_name = "DIR", value_parser = OsStringValueParser::new().map(PathBuf::from))]
    pub cache_dir: Option<PathBuf>,

    /// Neither read nor write the cache
    #[arg(long)]
    pub no_cache: bool,

    /// Settings, declared allocators and suppressions (default: the nearest .drip.toml from the
    /// compile database's directory up to the repository root)
    #[arg(long, value_name = "FILE", value_parser = OsStringValueParser::new().map(PathBuf::from))]
    pub config: Option<PathBuf>,

    /// Override one analysis budget (repeatable; see the README)
    #[arg(long = "budget", value_name = "NAME=N", value_parser = Utf8(StringValueParser::new()))]
    pub budgets: Vec<String>,

    /// Report these rules (comma-separated; all are on unless switched off)
    #[arg(long, value_name = "RULES", value_parser = Utf8(StringValueParser::new()))]
    pub enable: Vec<String>,

    /// Do not report these rules: leak, double-free, leak-on-realloc-failure,
    /// mismatched-deallocation (repeatable; the
    /// last word on a rule wins, over .drip.toml's [rules])
    #[arg(long, value_name = "RULES", value_parser = Utf8(StringValueParser::new()))]
    pub disable: Vec<String>,

    /// What fails the run: findings (exit 1; the default), also parse errors clang recovered
    /// from (exit 2), or never findings (exit 0). Overrides .drip.toml's [check] fail-on
    #[arg(long, value_name = "WHEN", value_parser = Utf8(EnumValueParser::<FailOn>::new()))]
    pub fail_on: Option<FailOn>,

    /// Show parse errors and other per-TU messages
    #[arg(short = 'v', long)]
    pub verbose: bool,
}

/// `drip dump-ir`: check's options, and the function to print.
#[derive(Args, Debug, Clone)]
pub struct DumpIrArgs {
    /// Print only the function(s) named NAME
    #[arg(long, value_name = "NAME", value_parser = Utf8(StringValueParser::new()))]
    pub function: Option<String>,

    #[command(flatten)]
    pub check: CheckArgs,
}

/// `drip capture`'s options. The build command (after `--`) is not parsed by clap: `parse` cuts
/// it off first, so that `--check`'s words end at `--` and the build's own options (`make -j8`)
/// are never read as capture's.
#[derive(Args, Debug, Clone)]
pub struct CaptureArgs {
    /// The compile database to write (default: ./compile_commands.json)
    #[arg(long = "cdb", short = 'o', visible_alias = "output", value_name = "PATH",
          value_parser = OsStringValueParser::new().map(PathBuf::from))]
    pub cdb: Option<PathBuf>,

    /// Also wrap the compiler NAME (found on PATH); repeatable
    #[arg(long = "compiler", value_name = "NAME", value_parser = Utf8(StringValueParser::new()))]
    pub compilers: Vec<String>,

    /// Background workers preparing TUs during the build (default: 1)
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = Utf8(positive))]
    pub jobs: Option<usize>,

    /// Show the wrapped compilers and every file left out
    #[arg(short = 'v', long)]
    pub verbose: bool,

    /// Then run `drip check` on the database, with the options that follow up to `--`
    /// (--format, -o, --stats...)
    #[arg(long, value_name = "CHECK OPTIONS", num_args = 0.., allow_hyphen_values = true,
          value_parser = OsStringValueParser::new())]
    pub check: Option<Vec<OsString>>,

    /// The build command and its arguments, passed on as they are
    #[arg(last = true, value_name = "BUILD", value_parser = OsStringValueParser::new())]
    pub build: Vec<OsString>,

    /// Whether `--` was given (set by `parse`, not an option).
    #[arg(skip)]
    pub separator: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Compiler-style warnings and notes, with the source lines
    Text,
    /// SARIF 2.1.0, for code scanning
    Sarif,
    /// drip's own JSON, with the statistics
    Json,
    /// A directory of pages (needs -o DIR)
    Html,
    /// GitLab Code Quality
    Codeclimate,
}

/// `--fail-on`: the strictest level that fails the run; each includes the ones before it.
/// Usage and input errors (exit 2), a TU that failed to parse (2) and internal errors (3) fail
/// every run: its result is not the whole program's.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FailOn {
    /// Findings do not fail the run (exit 0), for a job that only publishes the report
    Never,
    /// A reported finding fails the run (exit 1)
    Finding,
    /// Also a TU parsed with errors (exit 2: part of the program may be analysed as clang
    /// recovered it, not as written)
    ParseError,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorWhen {
    /// On a terminal, unless NO_COLOR is set or TERM is dumb
    Auto,
    /// Also into a pipe or a file (-o)
    Always,
    Never,
}

/// The definition as a `clap::Command` (for completions, the man page and errors).
pub fn command() -> clap::Command {
    Cli::command()
}

/// Parse `argv` (with the program's name first). For `drip capture`, the words after the first
/// `--` are the build command and are not parsed.
pub fn parse(argv: &[OsString]) -> Result<(Cli, ArgMatches), clap::Error> {
    if let Some(k) = argv.iter().position(|a| a == "--") {
        // Which command is it? An error-tolerant parse of the words before `--` says.
        let probe = command().ignore_errors(true).try_get_matches_from(&argv[..k]);
        if probe.is_ok_and(|m| m.subcommand_name() == Some("capture")) {
            let (mut cli, matches) = parse_words(&argv[..k])?;
            if let Some(Command::Capture(c)) = &mut cli.command {
                c.build = argv[k + 1..].to_vec();
                c.separator = true;
            }
            return Ok((cli, matches));
        }
    }
    parse_words(argv)
}

fn parse_words(argv: &[OsString]) -> Result<(Cli, ArgMatches), clap::Error> {
    let mut cmd = command();
    let matches = cmd.try_get_matches_from_mut(argv)?;
    let cli = Cli::from_arg_matches(&matches).map_err(|e| e.with_cmd(&cmd))?;
    Ok((cli, matches))
}

/// `drip check OPTS` (for `drip capture --check OPTS`): the options and their matches.
pub fn parse_check(opts: &[OsString]) -> Result<(CheckArgs, ArgMatches), clap::Error> {
    let mut argv = vec![OsString::from("drip"), OsString::from("check")];
    argv.extend_from_slice(opts);
    let (cli, matches) = parse_words(&argv)?;
    match (cli.command, matches.subcommand()) {
        (Some(Command::Check(c)), Some((_, m))) => Ok((c, m.clone())),
        _ => unreachable!("the words start with `check`"),
    }
}

/// The `--enable`/`--disable` lists of a check command's matches, in the order given
/// (`true`: enable): the last word on a rule wins.
pub fn rule_switches(m: &ArgMatches) -> Vec<(bool, String)> {
    let mut out: Vec<(usize, bool, String)> = Vec::new();
    for (id, on) in [("enable", true), ("disable", false)] {
        if let (Some(at), Some(values)) = (m.indices_of(id), m.get_many::<String>(id)) {
            out.extend(at.zip(values).map(|(i, v)| (i, on, v.clone())));
        }
    }
    out.sort_by_key(|(i, _, _)| *i);
    out.into_iter().map(|(_, on, v)| (on, v)).collect()
}

/// The `--color` of `argv`, read before parsing so that clap's own messages follow it too;
/// `Auto` when absent or not one of the choices (the parse then reports it).
pub fn color_of(argv: &[OsString]) -> ColorWhen {
    let mut it = argv.iter().skip(1).take_while(|a| *a != "--");
    let mut seen = ColorWhen::Auto;
    while let Some(a) = it.next() {
        let value = match a.as_bytes().strip_prefix(b"--color") {
            Some(b"") => it.next().map(|v| v.as_bytes()),
            Some(rest) => rest.strip_prefix(b"="),
            None => None,
        };
        let parsed = value.and_then(|v| std::str::from_utf8(v).ok()).and_then(|v| ColorWhen::from_str(v, false).ok());
        if let Some(c) = parsed {
            seen = c;
        }
    }
    seen
}

/// A value parser that first requires the word to be UTF-8, naming the option and showing the
/// bytes when it is not, then hands it to `P`.
#[derive(Clone)]
pub struct Utf8<P>(pub P);

impl<P: TypedValueParser> TypedValueParser for Utf8<P> {
    type Value = P::Value;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Self::Value, clap::Error> {
        if value.to_str().is_none() {
            let name = arg.map_or_else(|| "a value".to_string(), |a| a.to_string());
            let message = format!("invalid value '{}' for '{name}': not UTF-8 (drip needs it as text)\n", shown(value));
            return Err(clap::Error::raw(ErrorKind::InvalidUtf8, message).with_cmd(cmd));
        }
        self.0.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        self.0.possible_values()
    }
}

/// `-j`: a number of workers.
fn positive(s: &str) -> Result<usize, String> {
    s.parse().ok().filter(|n| *n > 0).ok_or_else(|| format!("expects a positive number, got '{s}'"))
}

/// A word of the command line as a message shows it: bytes that are not UTF-8 as `\xNN`,
/// control characters escaped.
pub fn shown(word: &OsStr) -> String {
    let lossless: String = word.as_bytes().utf8_chunks().fold(String::new(), |mut out, c| {
        out.push_str(c.valid());
        for b in c.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
        out
    });
    crate::terminal::escape(&lossless).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<OsString> {
        std::iter::once("drip").chain(s.split_whitespace()).map(OsString::from).collect()
    }

    #[test]
    fn the_definition_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn capture_stops_at_the_separator() {
        let (cli, _) = parse(&words("capture -j2 --check --format json -o r.json -- make -j8 -o x")).expect("parse");
        let Some(Command::Capture(c)) = cli.command else { panic!("capture") };
        assert_eq!(c.jobs, Some(2));
        assert_eq!(c.check, Some(words("--format json -o r.json")[1..].to_vec()));
        assert_eq!(c.build, words("make -j8 -o x")[1..].to_vec());
        assert!(c.separator);
    }

    #[test]
    fn switches_keep_their_order() {
        let (_, m) = parse(&words("check --disable leak --enable double-free --disable double-free --enable leak"))
            .expect("parse");
        let m = m.subcommand_matches("check").expect("check");
        let got = rule_switches(m);
        let want = [(false, "leak"), (true, "double-free"), (false, "double-free"), (true, "leak")];
        assert_eq!(got, want.map(|(on, r)| (on, r.to_string())));
    }

    #[test]
    fn color_is_read_before_parsing() {
        assert_eq!(color_of(&words("check --color never")), ColorWhen::Never);
        assert_eq!(color_of(&words("--color=always check")), ColorWhen::Always);
        assert_eq!(color_of(&words("check a.c -- --color=never")), ColorWhen::Auto);
        assert_eq!(color_of(&words("check --color sometimes")), ColorWhen::Auto);
    }
}
