//! The `countersign` command line. Parses arguments and calls the library; decides how
//! diagnostics are printed and which exit code to use:
//! 0 success; 1 a claim failed or the site has an error; 2 a usage error.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};

use countersign::console::{err, out};
use countersign::diag::{Code, Diagnostic, Sources};
use countersign::pipeline::{self, RunOptions};

/// mimalloc rather than the system allocator: a warm build makes and frees some 200,000
/// small values (results read from the cache), which the system allocator served with a
/// fifth of the build's instructions and, in the worker threads, hundreds of `mprotect`
/// calls growing their arenas.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "countersign", version, about = "A literate static-site generator whose numbers are recomputed at every build")]
struct Cli {
    /// The site root (holding countersign.yaml and essays/); default: the nearest folder,
    /// from the current one upwards, holding countersign.yaml (else the current folder).
    #[arg(long = "root", global = true, value_name = "ROOT")]
    root_arg: Option<PathBuf>,
    /// The root in use: `--root`, or the one found by [`site_root`].
    #[arg(skip)]
    root: PathBuf,
    /// Never colour diagnostics.
    #[arg(long, global = true)]
    no_color: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Check every claim and write the site to public/ (atomically).
    Build {
        /// Output folder (default: ROOT/public).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Compute every census afresh; neither read nor write the cache.
        #[arg(long)]
        no_cache: bool,
    },
    /// Check every claim without writing the site; exit 1 when any fails.
    Check {
        /// Rewrite each disagreeing stated value in place, keeping its form.
        #[arg(long)]
        bless: bool,
        /// Also fail on numbers in prose that no claim covers, and on interpolations.
        #[arg(long)]
        strict: bool,
        /// Report format: human diagnostics, or one JSON report on stdout.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Compute every census afresh; neither read nor write the cache.
        #[arg(long)]
        no_cache: bool,
        /// Also run every site census call twice more, afresh, and fail when its two
        /// answers differ (a census must be deterministic).
        #[arg(long)]
        verify: bool,
    },
    /// Run one census and print its result.
    Run {
        /// The census name, e.g. welter.census.
        name: String,
        /// Its parameters as YAML, e.g. '{coins: {2: 11}}'.
        #[arg(long = "with", default_value = "{}")]
        with: String,
        /// Print only the result, as JSON, on stdout.
        #[arg(long)]
        json: bool,
        /// Refuse calls estimated above this many steps (default: the site's budget).
        #[arg(long)]
        budget: Option<u64>,
    },
    /// List the censuses, their parameters, limits and cost model.
    List,
    /// Document every figure kind (or one): the data it draws, each option with its type,
    /// default and meaning, and an example block.
    Figures {
        /// Only this kind (e.g. grid).
        kind: Option<String>,
    },
    /// Build, serve the site from memory on localhost, rebuild on every save and reload
    /// the open pages; a failed claim shows over every page until the next good save.
    Watch {
        /// The port to listen on (0: any free port; the address is printed).
        #[arg(long, default_value_t = 1111)]
        port: u16,
        /// The address to listen on, IPv4 or IPv6 (e.g. ::1).
        #[arg(long, default_value = "127.0.0.1")]
        interface: std::net::IpAddr,
        /// Open the site in the default browser once it is built.
        #[arg(long)]
        open: bool,
        /// Also answer requests for this host name (repeatable); only the bound address and
        /// localhost are answered otherwise, so that no web page can rebind its own name to
        /// this server and read the drafts.
        #[arg(long = "allow-host", value_name = "NAME")]
        allow_host: Vec<String>,
        /// Poll the files for changes every 100 ms instead of waiting for the system's
        /// notifications (network drives, WSL, container mounts, where they do not arrive).
        #[arg(long)]
        poll: bool,
    },
    /// Create a new site in the folder NAME (config, one essay with a census and claims).
    New {
        /// The folder to create; its name becomes the site's title.
        name: PathBuf,
    },
    /// Manage the results cache.
    Cache {
        #[command(subcommand)]
        action: CacheAction,
    },
}

#[derive(Subcommand)]
enum CacheAction {
    /// Remove every cached result.
    Clean,
}

fn color(cli: &Cli) -> bool {
    use std::io::IsTerminal;
    !cli.no_color && std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

fn print_diags(sources: &Sources, diags: &[Diagnostic], color: bool) {
    if !diags.is_empty() {
        err(&sources.render(diags, color));
    }
}

/// `n` and `noun`, with an `s` unless `n` is 1 ("1 essay", "2 essays").
fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

fn summary_line(diags: &[Diagnostic]) -> String {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    format!("{}, {}", count(errors, "error"), count(warnings, "warning"))
}

/// The site root must be a folder: said once, in a sentence, rather than as a missing
/// config, essays folder and bibliography.
fn root_problem(root: &std::path::Path) -> Option<String> {
    match std::fs::metadata(root) {
        Ok(m) if m.is_dir() => None,
        Ok(_) => Some(format!(
            "the site root {} is a file, not a folder; --root names the folder holding countersign.yaml and essays/",
            root.display()
        )),
        Err(e) => Some(format!("cannot open the site root {}: {e}", root.display())),
    }
}

/// `countersign build`: take the output lock, run every stage, write the site.
fn build(cli: &Cli, out: Option<&std::path::Path>, no_cache: bool, color: bool) -> ExitCode {
    let started = Instant::now();
    let out = out.map(std::path::Path::to_path_buf).unwrap_or_else(|| cli.root.join("public"));
    let write_to = match countersign::site::output::check_out(&cli.root, &out) {
        Ok(p) => p,
        Err(e) => {
            err(&format!("error: {e}\n"));
            return ExitCode::from(1);
        }
    };
    // One build at a time writes beside the output folder; a second one waits here,
    // before computing, so it finds the first one's results in the cache.
    let lock = countersign::site::output::lock_output(&write_to, || {
        err(&format!("waiting for another build writing beside {} to finish\n", out.display()))
    });
    let run = pipeline::run_publishing(&RunOptions {
        root: cli.root.clone(),
        use_cache: !no_cache,
        progress: pipeline::progress_allowed(),
        render: true,
    });
    let mut diags = run.diags.clone();
    diags.extend(pipeline::draft_warnings(&run.loaded.essays));
    print_diags(&run.loaded.sources, &diags, color);
    if !run.ok() {
        err(&format!("build failed: {}; the previous site was left as it was\n", summary_line(&diags)));
        return ExitCode::from(1);
    }
    // A folder that cannot hold the output is reported after the sources' own errors.
    let lock = match lock {
        Ok(l) => l,
        Err(e) => {
            err(&format!("error: cannot write the site to {}: {e}\n", out.display()));
            return ExitCode::from(1);
        }
    };
    let output = run.output.unwrap_or_default();
    // COUNTERSIGN_PUBLISH=renames forces the two renames Windows takes, so tests cover them here.
    let publish = match std::env::var_os("COUNTERSIGN_PUBLISH") {
        Some(v) if v == "renames" => countersign::site::output::Publish::Renames,
        _ => countersign::site::output::Publish::Exchange,
    };
    if let Err(e) =
        countersign::site::output::write_atomically(&write_to, &output, &mut countersign::site::output::FsWriter, &lock, publish)
    {
        err(&format!("error: cannot write the site to {}: {e}\n", out.display()));
        return ExitCode::from(1);
    }
    // Counted as `check` counts them: claims compared with a result (see `was_checked`).
    let claims: usize = run.checked.as_ref().map(|c| c.reports.iter().flatten().filter(|r| r.was_checked()).count()).unwrap_or(0);
    err(&format!(
        "built {} ({} checked, {} files) into {} in {:.2}s; census calls: {} ({} ran, {} from cache)\n",
        count(run.loaded.essays.len(), "essay"),
        count(claims, "claim"),
        output.files.len(),
        out.display(),
        started.elapsed().as_secs_f64(),
        run.stats.calls,
        run.stats.ran,
        run.stats.cached
    ));
    // The process ends here: freeing the checked results value by value (a twentieth of
    // a warm build's instructions) would only delay the exit.
    std::mem::forget(run.checked);
    ExitCode::SUCCESS
}

/// `countersign figures [KIND]`: the figure reference on stdout; an unknown kind is a
/// usage error (exit 2).
fn figures(kind: Option<&str>) -> ExitCode {
    match countersign::figures::reference::reference(kind) {
        Ok(text) => {
            out(&text);
            ExitCode::SUCCESS
        }
        Err(e) => {
            err(&format!("error: {e}\n"));
            ExitCode::from(2)
        }
    }
}

/// The site root when `--root` is not given: the nearest of the current folder and its
/// ancestors holding `countersign.yaml` or an `essays/` folder, as cargo finds
/// `Cargo.toml` and git `.git` (`.` when it is the current folder, so messages read as
/// before); the current folder when none does. A site with no configuration is found by
/// its `essays/`, so it never picks up the configuration of a site it sits inside.
fn site_root(given: Option<&std::path::Path>) -> PathBuf {
    if let Some(root) = given {
        return root.to_path_buf();
    }
    let here = PathBuf::from(".");
    let Ok(cwd) = std::env::current_dir() else { return here };
    match cwd.ancestors().find(|dir| dir.join("countersign.yaml").is_file() || dir.join("essays").is_dir()) {
        Some(dir) if dir != cwd => dir.to_path_buf(),
        _ => here,
    }
}

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    cli.root = site_root(cli.root_arg.as_deref());
    let color = color(&cli);
    if matches!(cli.command, Command::Build { .. } | Command::Check { .. } | Command::Watch { .. }) {
        if let Some(e) = root_problem(&cli.root) {
            err(&format!("error: {e}\n"));
            return ExitCode::from(1);
        }
    }
    match &cli.command {
        Command::Build { out, no_cache } => build(&cli, out.as_deref(), *no_cache, color),
        Command::Check { bless, strict, format, no_cache, verify } => {
            let started = Instant::now();
            let run = pipeline::run(
                &RunOptions {
                    root: cli.root.clone(),
                    use_cache: !no_cache,
                    progress: pipeline::progress_allowed() && *format == Format::Human,
                    render: true,
                },
                None,
            );
            let mut diags = run.diags.clone();
            diags.extend(pipeline::draft_warnings(&run.loaded.essays));
            let reports: Vec<countersign::check::ClaimReport> =
                run.checked.as_ref().map(|c| c.reports.iter().flatten().cloned().collect()).unwrap_or_default();
            if *verify {
                diags.extend(pipeline::verify(&run.loaded));
            }
            if *strict {
                diags.extend(countersign::strict::findings(&run.loaded.essays, run.checked.as_ref().map(|c| c.bound.as_slice())));
            }
            if *bless {
                let (edits, refusals) = countersign::bless::plan(&reports);
                diags.retain(|d| !(d.code == Code::ClaimMismatch && edits.iter().any(|e| e.file == d.file && e.span == d.span)));
                diags.extend(refusals);
                match countersign::bless::apply(&cli.root, &edits) {
                    Ok(done) => {
                        for e in &done {
                            out(&format!("{}:{}\n- {}\n+ {}\n", e.file, e.line, e.old, e.new));
                        }
                        err(&format!("blessed {} stated value{}\n", done.len(), if done.len() == 1 { "" } else { "s" }));
                    }
                    Err(d) => diags.extend(d),
                }
            }
            let failed = diags.iter().any(Diagnostic::is_error);
            if *format == Format::Json {
                let report = countersign::report::json(&run, &reports, &diags);
                out(&format!("{}\n", serde_json::to_string_pretty(&report).unwrap_or_default()));
            } else {
                print_diags(&run.loaded.sources, &diags, color);
                let checked = reports.iter().filter(|r| r.was_checked()).count();
                err(&format!(
                    "{} {}, {} checked: {}; census calls: {} ({} ran, {} from cache) in {:.2}s\n",
                    if failed { "FAILED" } else { "ok" },
                    count(run.loaded.essays.len(), "essay"),
                    count(checked, "claim"),
                    summary_line(&diags),
                    run.stats.calls,
                    run.stats.ran,
                    run.stats.cached,
                    started.elapsed().as_secs_f64()
                ));
            }
            if failed {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Command::Run { name, with, json, budget } => countersign::cli_run::run(&cli.root, name, with, *json, *budget, color),
        Command::Watch { port, interface, open, allow_host, poll } => countersign::watch::main(&countersign::watch::Options {
            root: cli.root.clone(),
            interface: *interface,
            port: *port,
            open: *open,
            color,
            allowed_hosts: allow_host.clone(),
            poll: *poll,
        }),
        Command::New { name } => match countersign::scaffold::create(name) {
            Ok(files) => {
                err(&format!("created {} ({}); now: cd {} && countersign build\n", name.display(), files.join(", "), name.display()));
                ExitCode::SUCCESS
            }
            Err(e) => {
                err(&format!("error: {e}\n"));
                ExitCode::from(1)
            }
        },
        Command::Figures { kind } => figures(kind.as_deref()),
        Command::List => {
            out(&countersign::cli_run::list(&cli.root));
            ExitCode::SUCCESS
        }
        Command::Cache { action: CacheAction::Clean } => {
            let cache = countersign::cache::Cache::at(pipeline::cache_dir(&cli.root));
            match cache.clean() {
                Ok(n) => {
                    err(&format!("removed {n} cached result{}\n", if n == 1 { "" } else { "s" }));
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    err(&format!("error: cannot clean the cache: {e}\n"));
                    ExitCode::from(1)
                }
            }
        }
    }
}
