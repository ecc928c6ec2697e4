//! `tracelint watch SPOOL`: a spool-directory daemon that judges every trace that lands in
//! `SPOOL/new/` with the same check as `tracelint check` and moves it, untouched, to
//! `accepted/`, `rejected/` or `quarantine/` with a JSON report next to it.
//!
//! The state of the daemon is the spool itself: an input is in `new/`, claimed in `work/`, or
//! in a verdict folder. Events from the file-system watcher only make things faster; full
//! rescans (at start, after any lost-event signal, and periodically) make them correct. The
//! operator documentation is `docs/watch.md`.
#![deny(clippy::unwrap_used, clippy::expect_used)]

mod dispatch;
mod judge;
mod metrics;
mod place;
mod settle;
mod shared;
pub mod spool;
mod util;

use crate::config::Config;
use crossbeam_channel::{bounded, select, Receiver, Sender, TrySendError};
use dispatch::Dispatch;
use judge::WatchInfo;
use metrics::Metrics;
use notify::Watcher;
use place::{commit, commit_batch, log_recovered};
use settle::Settler;
use shared::{Job, Msg, Pending, Shared};
use spool::{ClaimName, Spool};
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

pub use util::parse_duration;

/// How the daemon runs (`tracelint watch` fills it from its command line).
#[derive(Debug, Clone)]
pub struct WatchConfig {
    /// The spool root (holds tmp/, new/, work/, accepted/, rejected/, quarantine/; created if
    /// missing).
    pub spool: PathBuf,
    /// Judge what is in new/ (and dead instances' leftovers in work/) once, then stop.
    pub once: bool,
    /// For producers that write in place in new/: judge a file only after it was closed after
    /// writing and then stayed unchanged (size, mtime) this long.
    pub settle: Option<Duration>,
    /// With `settle`: quiet period for files whose close was not seen (found by a rescan or
    /// the poll watcher). `None`: 4 × `settle`.
    pub settle_unseen: Option<Duration>,
    /// Use the polling watcher with this interval (network file systems, inotify limits).
    pub poll: Option<Duration>,
    /// Full rescan of the spool at this interval, as a safety net for lost events.
    pub rescan_interval: Duration,
    /// Checks run in parallel (`None` or 0: number of CPUs).
    pub jobs: Option<usize>,
    /// Inputs held in memory waiting for a worker; beyond that, events are dropped and a
    /// rescan picks the inputs up later.
    pub queue: usize,
    /// Capacity of the watcher's event channel (events beyond it trigger a rescan).
    pub event_queue: usize,
    /// Write the JSON Lines event log to this file (appended; reopened on SIGHUP) instead of
    /// stdout.
    pub log: Option<PathBuf>,
    /// Keep a Prometheus text file here (rewritten every second through a rename).
    pub metrics_file: Option<PathBuf>,
    /// Serve /metrics and /healthz over HTTP on this address.
    pub metrics: Option<std::net::SocketAddr>,
    /// On SIGTERM/SIGINT, wait this long for running checks before exiting.
    pub shutdown_timeout: Duration,
    /// Reject inputs with warnings too (otherwise only errors reject).
    pub deny_warnings: bool,
    /// Threads that write reports and move inputs (their fsyncs share journal commits).
    pub io_threads: usize,
    /// Skip fsync of reports and folders (faster; a power loss may then lose verdict moves,
    /// never inputs).
    pub no_fsync: bool,
    /// Put a repaired copy of each rejected input that `tracelint fix` can repair, and its
    /// ledger (`NAME.fix.json`), in `salvaged/` (the input itself stays in `rejected/`).
    pub salvage: bool,
}

/// Runs the daemon; returns the process exit code (0: clean stop, 2: could not start).
/// `color`: whether the log on stderr may carry ANSI colours (the caller decides: only on a
/// terminal or when asked for).
pub fn run(args: &WatchConfig, config_path: Option<&Path>, color: bool) -> i32 {
    if let Err(e) = init_tracing(color) {
        eprintln!("tracelint watch: {e}");
        return 2;
    }
    match Daemon::start(args, config_path) {
        Ok(d) => d.run(),
        Err(e) => {
            tracing::error!("{e}");
            eprintln!("tracelint watch: {e}");
            2
        }
    }
}

/// Level names `TRACELINT_LOG` takes, alone or as `target=level`.
const LOG_LEVELS: [&str; 6] = ["trace", "debug", "info", "warn", "error", "off"];

/// Checks a `TRACELINT_LOG` filter: comma-separated directives, each a level or
/// `target=level`. A bare word that is no level would be taken as a target name and silently
/// turn the log off, so it is an error.
pub fn check_log_filter(filter: &str) -> Result<(), String> {
    for d in filter.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        let level = d.rsplit_once('=').map_or(d, |(_, l)| l);
        if !LOG_LEVELS.iter().any(|l| l.eq_ignore_ascii_case(level)) {
            return Err(format!(
                "TRACELINT_LOG={filter}: `{d}` is not a level or target=level (levels: {})",
                LOG_LEVELS.join(", ")
            ));
        }
    }
    Ok(())
}

/// The log on stderr. Under systemd (`JOURNAL_STREAM` set: stderr is the journal) lines carry
/// no timestamp of their own and start with the sd-daemon(3) priority prefix (`<3>` error,
/// `<4>` warning, `<6>` info, `<7>` debug and trace), so the journal records each line's level.
fn init_tracing(color: bool) -> Result<(), String> {
    let filter = match std::env::var("TRACELINT_LOG") {
        Ok(f) => {
            check_log_filter(&f)?;
            tracing_subscriber::EnvFilter::builder()
                .parse(&f)
                .map_err(|e| format!("TRACELINT_LOG={f}: {e}"))?
        }
        Err(std::env::VarError::NotPresent) => tracing_subscriber::EnvFilter::new("info"),
        Err(e) => return Err(format!("TRACELINT_LOG: {e}")),
    };
    if std::env::var_os("JOURNAL_STREAM").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_writer(io::stderr)
            .with_ansi(false)
            .with_env_filter(filter)
            .event_format(JournalFormat)
            .try_init();
    } else {
        let _ = tracing_subscriber::fmt()
            .with_writer(io::stderr)
            .with_ansi(color)
            .with_env_filter(filter)
            .with_target(false)
            .try_init();
    }
    Ok(())
}

/// Journal lines: `<N>` priority, then the message and fields, no timestamp or level word.
struct JournalFormat;

impl<S, N> tracing_subscriber::fmt::FormatEvent<S, N> for JournalFormat
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    N: for<'a> tracing_subscriber::fmt::FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &tracing_subscriber::fmt::FmtContext<'_, S, N>,
        mut writer: tracing_subscriber::fmt::format::Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        let prio = match *event.metadata().level() {
            tracing::Level::ERROR => 3,
            tracing::Level::WARN => 4,
            tracing::Level::INFO => 6,
            _ => 7,
        };
        write!(writer, "<{prio}>")?;
        ctx.field_format().format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}

struct Daemon {
    args: WatchConfig,
    shared: Arc<Shared>,
    jobs: usize,
}

impl Daemon {
    fn start(args: &WatchConfig, config_path: Option<&Path>) -> Result<Daemon, String> {
        let config = Config::discover(config_path).map_err(|e| format!("configuration: {e}"))?;
        warn_unused_program(&config);
        let spool = Spool::open(&args.spool, !args.no_fsync)?;
        let log = util::EventLog::open(args.log.as_deref()).map_err(|e| {
            format!(
                "cannot open the event log {}: {e}",
                args.log.as_deref().unwrap_or(Path::new("-")).display()
            )
        })?;
        let metrics = Arc::new(Metrics::new());
        if let Some(addr) = args.metrics {
            metrics::serve(addr, Arc::clone(&metrics))?;
        }
        let jobs = args.jobs.filter(|&j| j > 0).unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2)
        });
        if args.queue == 0 || args.event_queue == 0 {
            return Err("--queue and --event-queue must be at least 1".into());
        }
        Ok(Daemon {
            args: args.clone(),
            shared: Arc::new(Shared {
                spool,
                config: Mutex::new(Arc::new(config)),
                config_path: config_path.map(Path::to_path_buf),
                metrics,
                log,
                deny_warnings: args.deny_warnings,
                salvage: args.salvage,
                stopping: AtomicBool::new(false),
                slots: judge::Slots::new(jobs),
                stuck: Mutex::new(Vec::new()),
                metrics_warning: Mutex::new(util::Repeated::new(Duration::from_secs(600))),
                claim_failures: Mutex::new(std::collections::HashSet::new()),
                retry_max: args.rescan_interval.max(Duration::from_secs(1)),
            }),
            jobs,
        })
    }

    /// Starts the threads and the watcher, serves until a stop signal (or, with `once`, until
    /// the spool is judged), then stops.
    fn run(self) -> i32 {
        let sh = Arc::clone(&self.shared);
        tracing::info!(
            spool = %sh.spool.root.display(),
            instance = sh.spool.instance_id(),
            jobs = self.jobs,
            "tracelint watch starting"
        );

        // Signals first, so that a stop request during the start-up rescan is honoured.
        let (sig_tx, sig_rx) = bounded::<i32>(16);
        if let Err(e) = spawn_signal_thread(sig_tx) {
            tracing::error!("cannot install signal handlers: {e}");
            return 2;
        }
        let Some(threads) = self.spawn_threads() else {
            return 2;
        };

        // The watcher is armed before the first rescan, so nothing slips between the two.
        let (ev_tx, ev_rx) = bounded::<notify::Result<notify::Event>>(self.args.event_queue);
        let lost = Arc::new(AtomicBool::new(false));
        let Ok(watcher) = self.arm_watcher(&ev_tx, &lost) else {
            return 2;
        };

        let settle = self.args.settle.map(|s| {
            let unseen = self.args.settle_unseen.unwrap_or(s.saturating_mul(4));
            Settler::new(s, unseen)
        });
        let mut d = Dispatch::new(Arc::clone(&sh), self.args.queue, settle, self.args.once);
        d.rescan();
        d.feed(&threads.jobs);

        let mut inbox = Inbox {
            events: ev_rx,
            signals: sig_rx,
            lost,
        };
        let (stop_signal, failed) = self.serve(&mut d, &threads, &mut inbox);
        self.shut_down(&mut d, threads, watcher, inbox.signals, stop_signal);
        i32::from(failed)
    }

    /// Starts the committers and the workers: workers judge; committers write reports and move
    /// inputs into place. `None` when no worker could be started.
    fn spawn_threads(&self) -> Option<Threads> {
        let sh = &self.shared;
        let io_threads = self.args.io_threads.max(1);
        let (job_tx, job_rx) = bounded::<Job>(self.jobs);
        let (msg_tx, msg_rx) = bounded::<Msg>(
            self.jobs
                .saturating_add(io_threads)
                .saturating_mul(4)
                .max(64),
        );
        let (commit_tx, commit_rx) =
            bounded::<Pending>(io_threads.saturating_mul(place::MAX_BATCH));
        let mut workers = 0usize;
        let mut threads = 0usize;
        for i in 0..io_threads {
            let (rx, tx, sh) = (commit_rx.clone(), msg_tx.clone(), Arc::clone(sh));
            match std::thread::Builder::new()
                .name(format!("tracelint-commit-{i}"))
                .spawn(move || committer(&sh, &rx, &tx))
            {
                Ok(_) => threads = threads.saturating_add(1),
                Err(e) => tracing::warn!("cannot start committer {i}: {e}"),
            }
        }
        drop(commit_rx);
        if threads > 0 {
            for i in 0..self.jobs {
                let (rx, tx, sh, ctx) = (
                    job_rx.clone(),
                    msg_tx.clone(),
                    Arc::clone(sh),
                    commit_tx.clone(),
                );
                match std::thread::Builder::new()
                    .name(format!("tracelint-worker-{i}"))
                    .spawn(move || worker(&sh, &rx, &tx, &ctx))
                {
                    Ok(_) => workers = workers.saturating_add(1),
                    Err(e) => tracing::warn!("cannot start worker {i}: {e}"),
                }
            }
        }
        drop(commit_tx);
        drop(job_rx);
        drop(msg_tx);
        if workers == 0 {
            tracing::error!("no worker thread could be started");
            return None;
        }
        Some(Threads {
            jobs: job_tx,
            msgs: msg_rx,
            count: threads.saturating_add(workers),
        })
    }

    /// The file-system watcher of `new/` (none with `once`): inotify, or polling when asked
    /// for or when inotify is out of watches. `Err` when none can be made (logged).
    fn arm_watcher(
        &self,
        ev_tx: &Sender<notify::Result<notify::Event>>,
        lost: &Arc<AtomicBool>,
    ) -> Result<Option<Box<dyn Watcher + Send>>, ()> {
        if self.args.once {
            return Ok(None);
        }
        let new = &self.shared.spool.new;
        let watcher = match make_watcher(self.args.poll, new, ev_tx.clone(), Arc::clone(lost)) {
            Ok(w) => w,
            Err(e) if self.args.poll.is_none() => {
                // inotify limits (max_user_watches / max_user_instances): poll instead.
                tracing::warn!(
                    "cannot watch {} with inotify ({e}); polling every 2s instead",
                    new.display()
                );
                let every = Some(Duration::from_secs(2));
                match make_watcher(every, new, ev_tx.clone(), Arc::clone(lost)) {
                    Ok(w) => w,
                    Err(e) => {
                        tracing::error!("cannot watch {}: {e}", new.display());
                        return Err(());
                    }
                }
            }
            Err(e) => {
                tracing::error!("cannot watch {}: {e}", new.display());
                return Err(());
            }
        };
        tracing::info!(
            watcher = if self.args.poll.is_some() {
                "poll"
            } else {
                "native"
            },
            "watching {}",
            new.display()
        );
        Ok(Some(watcher))
    }

    /// The main loop: events, workers' messages, signals and the tick (lost events, periodic
    /// rescans, settling, metrics). Returns the stop signal (if one ended it) and whether it
    /// ended because every worker did.
    fn serve(&self, d: &mut Dispatch, threads: &Threads, inbox: &mut Inbox) -> (Option<i32>, bool) {
        let sh = &self.shared;
        let tick = crossbeam_channel::tick(Duration::from_millis(50));
        let mut last_periodic = Instant::now();
        let mut last_metrics = Instant::now();
        loop {
            select! {
                recv(inbox.events) -> ev => {
                    match ev {
                        Ok(ev) => {
                            d.on_event(ev);
                            // Drain what is already there before feeding workers.
                            for ev in inbox.events.try_iter().take(4096) {
                                d.on_event(ev);
                            }
                        }
                        Err(_) => {
                            tracing::error!("the watcher stopped; relying on periodic rescans");
                            inbox.events = crossbeam_channel::never();
                        }
                    }
                }
                recv(threads.msgs) -> m => {
                    match m {
                        Ok(m) => d.on_msg(m),
                        Err(_) => {
                            tracing::error!("all worker threads ended; exiting");
                            return (None, true);
                        }
                    }
                }
                recv(inbox.signals) -> s => {
                    match s {
                        Ok(signal_hook::consts::SIGHUP) => reload(sh),
                        Ok(s) => return (Some(s), false),
                        Err(_) => inbox.signals = crossbeam_channel::never(),
                    }
                }
                recv(tick) -> _ => {
                    if inbox.lost.swap(false, Ordering::Relaxed) {
                        sh.metrics.overflows.fetch_add(1, Ordering::Relaxed);
                        tracing::warn!("file-system events were lost (event channel full); rescanning");
                        d.rescan_needed = true;
                    }
                    if !d.once && last_periodic.elapsed() >= self.args.rescan_interval {
                        d.rescan_needed = true;
                        last_periodic = Instant::now();
                    }
                    if d.rescan_needed && d.may_rescan() {
                        d.rescan();
                    }
                    d.settle_tick();
                    if last_metrics.elapsed() >= Duration::from_secs(1) {
                        last_metrics = Instant::now();
                        d.publish();
                        write_metrics(&self.args, sh);
                    }
                }
            }
            d.feed(&threads.jobs);
            d.publish();
            if d.once && d.idle() && !d.rescan_needed {
                return (None, false);
            }
        }
    }

    /// Stops: no new claims; running checks get `shutdown_timeout` to finish (a second stop
    /// signal ends the wait).
    fn shut_down(
        &self,
        d: &mut Dispatch,
        threads: Threads,
        watcher: Option<Box<dyn Watcher + Send>>,
        mut sig_rx: Receiver<i32>,
        stop_signal: Option<i32>,
    ) {
        let sh = &self.shared;
        sh.stopping.store(true, Ordering::SeqCst);
        drop(watcher);
        let left = d.drop_pending();
        let Threads { jobs, msgs, count } = threads;
        drop(jobs);
        if let Some(s) = stop_signal {
            tracing::info!(
                signal = s,
                queued_left_in_new = left,
                running = d.in_flight,
                "stopping: no new claims; waiting for running checks"
            );
        }
        let deadline = Instant::now() + self.args.shutdown_timeout;
        let mut exited = 0usize;
        while exited < count {
            let now = Instant::now();
            if now >= deadline {
                tracing::warn!(
                    running = d.in_flight,
                    "shutdown timeout: inputs still being checked stay in work/ and are taken over at the next start"
                );
                break;
            }
            select! {
                recv(msgs) -> m => match m {
                    Ok(Msg::Exited) => exited = exited.saturating_add(1),
                    Ok(m) => d.on_msg(m),
                    Err(_) => break,
                },
                recv(sig_rx) -> s => match s {
                    Ok(signal_hook::consts::SIGHUP) => {}
                    Ok(_) => {
                        tracing::warn!("second stop signal: exiting now; running inputs stay in work/");
                        break;
                    }
                    Err(_) => sig_rx = crossbeam_channel::never(),
                },
                default(deadline.saturating_duration_since(now)) => {}
            }
        }
        d.publish();
        write_metrics(&self.args, sh);
        tracing::info!("tracelint watch stopped");
    }
}

/// The running threads: the job queue to the workers, their messages back, and how many
/// threads (workers and committers) there are.
struct Threads {
    jobs: Sender<Job>,
    msgs: Receiver<Msg>,
    count: usize,
}

/// What the main loop receives besides the workers' messages: watcher events, signals, and
/// the flag the watcher sets when its channel was full.
struct Inbox {
    events: Receiver<notify::Result<notify::Event>>,
    signals: Receiver<i32>,
    lost: Arc<AtomicBool>,
}

fn spawn_signal_thread(tx: Sender<i32>) -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP])?;
    std::thread::Builder::new()
        .name("tracelint-signals".into())
        .spawn(move || {
            for s in signals.forever() {
                if tx.send(s).is_err() {
                    break;
                }
            }
        })?;
    Ok(())
}

/// `[check] program` serves `check`, `map` and `fix`; the daemon checks without it, and says so.
fn warn_unused_program(config: &Config) {
    if let Some(p) = &config.check.program {
        tracing::warn!(
            "[check] program = {} is not used by the daemon: GDB tfiles are checked without the program",
            p.display()
        );
    }
}

fn reload(sh: &Shared) {
    match Config::discover(sh.config_path.as_deref()) {
        Ok(c) => {
            warn_unused_program(&c);
            if let Ok(mut g) = sh.config.lock() {
                *g = Arc::new(c);
            }
            tracing::info!("SIGHUP: configuration reloaded");
        }
        Err(e) => tracing::error!("SIGHUP: configuration not reloaded, keeping the old one: {e}"),
    }
    if let Err(e) = sh.log.reopen() {
        tracing::error!("SIGHUP: cannot reopen the event log: {e}");
    }
}

/// Rewrites the metrics file; a failure that repeats every second is logged once, then once
/// every 10 minutes with the number of failures in between, and its end is logged too.
fn write_metrics(args: &WatchConfig, sh: &Shared) {
    let Some(p) = &args.metrics_file else {
        return;
    };
    let result = metrics::write_file(p, &sh.metrics.render());
    let Ok(mut warned) = sh.metrics_warning.lock() else {
        return;
    };
    match result {
        Ok(()) => {
            if let Some(n) = warned.recovered() {
                tracing::info!(
                    "{} is written again (after {n} failed tr{})",
                    crate::check::escape_path(p),
                    if n == 1 { "y" } else { "ies" }
                );
            }
        }
        Err(e) => {
            if let Some(repeats) = warned.failed() {
                let also = if repeats > 0 {
                    format!(" ({repeats} more failure(s) since the last warning)")
                } else {
                    String::new()
                };
                tracing::warn!(
                    "cannot write the metrics file {}: {e}{also}; tried every second, warned again in 10 minutes",
                    crate::check::escape_path(p)
                );
            }
        }
    }
}

fn make_watcher(
    poll: Option<Duration>,
    new: &Path,
    tx: Sender<notify::Result<notify::Event>>,
    lost: Arc<AtomicBool>,
) -> notify::Result<Box<dyn Watcher + Send>> {
    let handler = move |ev: notify::Result<notify::Event>| {
        if let Err(TrySendError::Full(_)) = tx.try_send(ev) {
            lost.store(true, Ordering::Relaxed);
        }
    };
    let mut w: Box<dyn Watcher + Send> = match poll {
        Some(every) => Box::new(notify::PollWatcher::new(
            handler,
            notify::Config::default().with_poll_interval(every.max(Duration::from_millis(10))),
        )?),
        None => Box::new(notify::RecommendedWatcher::new(
            handler,
            notify::Config::default(),
        )?),
    };
    w.watch(new, notify::RecursiveMode::NonRecursive)?;
    Ok(w)
}

fn worker(sh: &Shared, rx: &Receiver<Job>, tx: &Sender<Msg>, commit: &Sender<Pending>) {
    let mut checker = judge::Checker::with_slots(Arc::clone(&sh.slots));
    for job in rx.iter() {
        let mut pending = None;
        match &job {
            Job::New(name) => {
                let claim = if sh.stopping.load(Ordering::SeqCst) {
                    None
                } else {
                    claim_new(sh, name)
                };
                // From here on, `new/<name>` may hold a newer input: watch for it again.
                let _ = tx.send(Msg::Released(name.clone()));
                if let Some(c) = claim {
                    guarded(sh, || {
                        pending = finish(sh, &c, Some(name.as_os_str()), false, &mut checker);
                    });
                }
            }
            Job::TakeOver(file) => {
                if !sh.stopping.load(Ordering::SeqCst) {
                    guarded(sh, || pending = take_over(sh, file, &mut checker));
                }
                let _ = tx.send(Msg::TakenOver(file.clone()));
            }
        }
        match pending {
            // The committer sends `Done` once the input is in place.
            Some(p) => {
                if let Err(e) = commit.send(p) {
                    drop(e);
                    let _ = tx.send(Msg::Done);
                }
            }
            None => {
                let _ = tx.send(Msg::Done);
            }
        }
    }
    let _ = tx.send(Msg::Exited);
}

/// Moves judged inputs into place. Several committers run at once so that their fsyncs share
/// journal commits (one fsync costs milliseconds; concurrent ones cost about the same).
fn committer(sh: &Shared, rx: &Receiver<Pending>, tx: &Sender<Msg>) {
    let mut batch = Vec::with_capacity(place::MAX_BATCH);
    for p in rx.iter() {
        // What is waiting too is placed with it: one fsync of a verdict folder serves all.
        batch.push(p);
        while batch.len() < place::MAX_BATCH {
            match rx.try_recv() {
                Ok(p) => batch.push(p),
                Err(_) => break,
            }
        }
        if let [one] = batch.as_slice() {
            guarded(sh, || commit(sh, one));
        } else {
            guarded(sh, || commit_batch(sh, &batch));
        }
        for _ in batch.drain(..) {
            let _ = tx.send(Msg::Done);
        }
    }
    let _ = tx.send(Msg::Exited);
}

/// Runs `f`, logging a panic instead of losing the worker (the input stays in `work/`).
fn guarded(sh: &Shared, f: impl FnOnce()) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
        sh.metrics.move_errors.fetch_add(1, Ordering::Relaxed);
        tracing::error!("internal error while handling an input; it stays where it was and is retried at the next start");
    }
}

/// Claims `new/<name>` by renaming it into `work/`.
fn claim_new(sh: &Shared, name: &OsStr) -> Option<ClaimName> {
    let sp = &sh.spool;
    let claim = sp.new_claim(name);
    let from = sp.new.join(name);
    let to = sp.work.join(claim.file_name());
    match std::fs::rename(&from, &to) {
        Ok(()) => Some(claim),
        // Claimed by another instance, or withdrawn by the producer.
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        // A directory the daemon may read but not write cannot leave new/ by a rename: it is
        // copied into work/ instead.
        Err(e)
            if e.kind() == io::ErrorKind::PermissionDenied
                && std::fs::symlink_metadata(&from).is_ok_and(|m| m.is_dir()) =>
        {
            match sp.claim_by_copy(name) {
                Ok(Some((c, removed))) => {
                    if !removed {
                        tracing::warn!(
                            "{} is a directory tracelint may not move or remove: it was copied to be judged; the original stays as new/{}{}: remove it (deliver directories group-writable to avoid the copy, see watch.md)",
                            crate::check::escape_path(&from),
                            spool::COPY_PREFIX,
                            crate::check::escape_path(Path::new(&c.file_name()))
                        );
                    }
                    Some(c)
                }
                Ok(None) => None,
                Err(e) => {
                    claim_failed(
                        sh,
                        name,
                        &format!(
                            "cannot claim {} by copying it: {e}; it stays in new/",
                            crate::check::escape_path(&from)
                        ),
                    );
                    None
                }
            }
        }
        Err(e) => {
            claim_failed(
                sh,
                name,
                &format!(
                    "cannot claim {}: {e}; it stays in new/",
                    crate::check::escape_path(&from)
                ),
            );
            None
        }
    }
}

/// A claim that failed is counted every time and logged as an error the first time for its
/// name (rescans try it again every --rescan-interval; the repeats are debug lines).
fn claim_failed(sh: &Shared, name: &OsStr, message: &str) {
    sh.metrics.move_errors.fetch_add(1, Ordering::Relaxed);
    let first = sh
        .claim_failures
        .lock()
        .is_ok_and(|mut seen| seen.len() < 10_000 && seen.insert(name.to_os_string()));
    if first {
        tracing::error!("{message} (tried again at every rescan; logged once)");
    } else {
        tracing::debug!("{message}");
    }
}

fn take_over(sh: &Shared, file: &OsStr, checker: &mut judge::Checker) -> Option<Pending> {
    let sp = &sh.spool;
    let old = ClaimName::parse(file)?;
    let new = ClaimName {
        owner: sp.instance_id().to_string(),
        ..old.clone()
    };
    match std::fs::rename(sp.work.join(file), sp.work.join(new.file_name())) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
        Err(e) => {
            sh.metrics.move_errors.fetch_add(1, Ordering::Relaxed);
            tracing::error!("cannot take over {}: {e}", sp.work.join(file).display());
            return None;
        }
    }
    sh.metrics.taken_over.fetch_add(1, Ordering::Relaxed);
    tracing::info!(owner = %old.owner, "taking over {} from a dead instance", Path::new(&old.name).display());
    finish(sh, &new, None, true, checker)
}

/// Judges a claimed input (`work/<claim>`); after a take-over, first completes a move the
/// previous owner had started. `delivered`: the input's name in `new/`, in full (the claim
/// keeps at most 140 bytes of it).
fn finish(
    sh: &Shared,
    claim: &ClaimName,
    delivered: Option<&OsStr>,
    taken_over: bool,
    checker: &mut judge::Checker,
) -> Option<Pending> {
    let sp = &sh.spool;
    if taken_over {
        match sp.find_placed(claim) {
            Ok(Some(placed)) => {
                match sp.complete_placed(claim, &placed) {
                    Ok(()) => {
                        sh.metrics.recovered.fetch_add(1, Ordering::Relaxed);
                        log_recovered(sh, claim, &placed);
                        if let Err(e) = sp.release(claim, placed.data.is_dir()) {
                            tracing::warn!(
                                "cannot remove the work/ entry of {}: {e}",
                                placed.data.display()
                            );
                        }
                    }
                    Err(e) => {
                        sh.metrics.move_errors.fetch_add(1, Ordering::Relaxed);
                        tracing::error!(
                            "cannot complete the move of {}: {e}",
                            placed.data.display()
                        );
                    }
                }
                return None;
            }
            Ok(None) => {}
            Err(e) => {
                tracing::error!("cannot search the verdict folders: {e}; the input stays in work/");
                return None;
            }
        }
    }
    let wpath = sp.work.join(claim.file_name());
    // Every byte of the name: bytes that are not UTF-8 as `\\xNN`.
    let shown = crate::check::escape_path(Path::new(delivered.unwrap_or(&claim.name)));
    let is_dir = std::fs::symlink_metadata(&wpath).is_ok_and(|m| m.is_dir());
    let config = sh.config();
    let j = judge::judge(
        &wpath,
        &shown,
        &config,
        sh.deny_warnings,
        checker,
        &sh.metrics.abandoned,
    );
    let ts = util::rfc3339(SystemTime::now());
    let duration_ms = j.report.duration.as_secs_f64() * 1000.0;
    let watch = WatchInfo {
        verdict: j.verdict,
        reason: j.reason.as_deref(),
        name: &shown,
        claim: &claim.claim,
        instance: sp.instance_id(),
        judged_at: &ts,
        duration_ms,
    };
    // The report exactly as `tracelint check --output json` shows one input, plus `watch`.
    let mut doc = crate::report::report_json_value(&j.report);
    if let (Some(o), Ok(w)) = (doc.as_object_mut(), serde_json::to_value(&watch)) {
        o.insert("watch".into(), w);
    }
    let sidecar = match serde_json::to_vec_pretty(&doc) {
        Ok(mut b) => {
            b.push(b'\n');
            b
        }
        Err(e) => {
            tracing::error!("cannot serialise the report of {shown}: {e}");
            return None;
        }
    };
    Some(Pending {
        claim: claim.clone(),
        shown,
        is_dir,
        verdict: j.verdict,
        reason: j.reason,
        format: j.report.format,
        counts: j.report.counts,
        size: j.report.size,
        duration: j.report.duration,
        sidecar,
    })
}
