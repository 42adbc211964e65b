//! The `countersign` command line. Parses arguments and calls the library; decides how
//! diagnostics are printed and which exit code to use:
//! 0 success; 1 a claim failed or the site has an error; 2 a usage error.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

mod cmd;
mod console;
mod scaffold;
mod watch;

use cmd::Failure;
use console::err;

/// mimalloc rather than the system allocator: a warm build makes and frees some 200,000
/// small values (results read from the cache), which the system allocator served with a
/// fifth of the build's instructions and, in the worker threads, hundreds of `mprotect`
/// calls growing their arenas.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "countersign", version, long_version = env!("COUNTERSIGN_LONG_VERSION"), about = "A literate static-site generator whose numbers are recomputed at every build")]
struct Cli {
    /// The site root (holding countersign.yaml and essays/); default: the nearest folder,
    /// from the current one upwards, holding countersign.yaml or an essays/ folder (else
    /// the current folder).
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
        /// The address the site will be served from (an http or https URL), in place of
        /// `base_url` in countersign.yaml: canonical links, the feed and the sitemap.
        #[arg(long, value_name = "URL", value_parser = parse_base_url)]
        base_url: Option<String>,
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
        /// Print only the result, as JSON, on stdout (the same as `--format json`).
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// Output format: an outline of the result's paths, or the whole result as JSON on
        /// stdout. Diagnostics go to stderr either way.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
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
    /// Create a new site in the folder NAME: a config, two essays (the first with census
    /// blocks, claims in every form and figures), a census of its own in Python and a
    /// GitHub workflow that checks and publishes it.
    New {
        /// The folder to create (relative to the current folder; `--root` does not apply);
        /// its name becomes the site's title.
        name: PathBuf,
    },
    /// Manage the results cache.
    Cache {
        #[command(subcommand)]
        action: CacheAction,
    },
    /// Explain a diagnostic code (`claim-mismatch`): what it means and what to do; without
    /// a code, list every code.
    Explain {
        /// The code, as shown in `error[CODE]`.
        code: Option<String>,
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
    match dispatch(&cli, color) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Failed) => ExitCode::from(1),
        Err(Failure::Usage) => ExitCode::from(2),
    }
}

/// Run the command `cli` names.
fn dispatch(cli: &Cli, color: bool) -> cmd::Outcome {
    let root = cli.root.as_path();
    match &cli.command {
        Command::Build { out, no_cache, base_url } => cmd::build::run(root, out.as_deref(), *no_cache, base_url.clone(), color),
        Command::Check { bless, strict, format, no_cache, verify } => {
            let modes =
                cmd::check::Modes { bless: *bless, strict: *strict, json: *format == Format::Json, no_cache: *no_cache, verify: *verify };
            cmd::check::run(root, modes, color)
        }
        Command::Run { name, with, json, format, budget } => {
            cmd::run::run(root, name, with, *json || *format == Format::Json, *budget, color)
        }
        Command::Watch { port, interface, open, allow_host, poll } => cmd::watch::run(&watch::Options {
            root: cli.root.clone(),
            interface: *interface,
            port: *port,
            open: *open,
            color,
            allowed_hosts: allow_host.clone(),
            poll: *poll,
        }),
        Command::New { name } => cmd::new::run(name, cli.root_arg.as_deref()),
        Command::Figures { kind } => cmd::figures::run(kind.as_deref()),
        Command::List => cmd::list::run(root),
        Command::Cache { action: CacheAction::Clean } => cmd::cache::clean(root),
        Command::Explain { code } => cmd::explain::run(code.as_deref()),
    }
}

/// `--base-url`: checked as `countersign.yaml`'s `base_url` is
/// ([`countersign_core::config::base_url`]).
fn parse_base_url(s: &str) -> Result<String, String> {
    countersign_core::config::base_url(s)
}
