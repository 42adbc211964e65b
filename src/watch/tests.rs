//! Unit tests of the watch loop's decisions: which finished builds are served while saves
//! keep coming (an editor truncating and rewriting a file in place, many times a second).

use super::*;

/// A finished build of generation `generation`: good, or failed as a build that read a
/// just-truncated essay fails.
fn built(generation: u64, ok: bool) -> Built {
    let error = (!ok).then(|| "error[missing-front-matter]: essays/small.md:1:1: the essay has no front matter".to_string());
    let status = json!({ "generation": generation, "ok": ok, "parsed": 1, "checked": 1, "rendered": {} });
    Built { snapshot: Snapshot { generation, files: Arc::default(), error, status }, printed: String::new(), summary: String::new() }
}

/// A watch loop over an empty site folder, serving a good generation 1, with its builder idle.
fn serving_good(dir: &std::path::Path) -> (Loop, Box<Builder>) {
    let (tx, _rx) = mpsc::channel();
    let watch = changes::Watch::new(dir, false, |_| {}).unwrap();
    let state = Arc::new(State::default());
    state.publish(built(1, true).snapshot);
    let mut lp = Loop::new(dir.to_path_buf(), state, tx, watch, Terminal::Kept(String::new()));
    lp.running = true;
    lp.published = 1;
    (lp, Box::new(Builder::new(dir.to_path_buf(), false)))
}

/// An instant `d` ago.
fn ago(d: Duration) -> Instant {
    Instant::now().checked_sub(d).expect("the clock is older than a few seconds")
}

#[test]
fn a_stale_failed_build_is_never_published_and_a_stale_good_one_is_after_max_wait() {
    let long = MAX_WAIT * 2;
    let quiet = QUIET * 100;
    let case = |ok, stale, waited, quiet_for| fate(&Finished { ok, stale, waited, quiet_for });
    // Saves still coming (the latest just now), builds dropped for longer than MAX_WAIT.
    assert_eq!(case(false, true, long, Duration::ZERO), Fate::Drop, "a stale failure is held for publishing");
    assert_eq!(case(false, true, long, quiet), Fate::Drop, "a stale failure is published");
    assert_eq!(case(true, true, long, Duration::ZERO), Fate::Hold);
    assert_eq!(case(true, true, long, quiet), Fate::Publish);
    // Before MAX_WAIT every stale build is dropped.
    assert_eq!(case(true, true, Duration::ZERO, quiet), Fate::Drop);
    assert_eq!(case(false, true, Duration::ZERO, quiet), Fate::Drop);
    // Once the events stop, the last build is served, failed or not.
    for ok in [true, false] {
        assert_eq!(case(ok, false, Duration::ZERO, Duration::MAX), Fate::Publish);
        assert_eq!(case(ok, false, long, quiet), Fate::Publish);
        assert_eq!(case(ok, false, long, Duration::ZERO), Fate::Hold);
    }
}

#[test]
fn under_sustained_in_place_saves_a_failed_build_never_replaces_the_good_page() {
    let dir = tempfile::tempdir().unwrap();
    let (mut lp, builder) = serving_good(dir.path());
    // Saves have kept builds from publishing for twice MAX_WAIT; one arrived during this
    // build, which read the essay just truncated.
    lp.discarding = Some(ago(MAX_WAIT * 2));
    lp.touched = true;
    lp.last_event = Some(ago(QUIET * 100));
    lp.done(builder, Some(built(2, false)), true);
    assert_eq!(lp.state.current().generation, 1, "a stale failed build replaced the good page");
    assert!(lp.held.is_none() && lp.dropped.len() == 1, "the stale failure is not dropped");
    // A failed build that no save overtook while it ran, held for the quiet period, is
    // dropped by the next save.
    let builder = lp.idle.take().unwrap();
    lp.running = true;
    lp.touched = false;
    lp.last_event = Some(Instant::now());
    lp.done(builder, Some(built(2, false)), true);
    assert!(lp.held.is_some(), "a fresh build is held for the quiet period");
    lp.touch();
    assert!(lp.held.is_none(), "a held failure survived a newer save (it would be published)");
    assert_eq!(lp.state.current().generation, 1);
    // A stale good build is published after MAX_WAIT, as before; a good one held survives
    // a newer save.
    let builder = lp.idle.take().unwrap();
    lp.running = true;
    lp.touched = true;
    lp.last_event = Some(ago(QUIET * 100));
    lp.done(builder, Some(built(2, true)), true);
    assert_eq!(lp.state.current().generation, 2, "a stale good build after MAX_WAIT is not published");
    // The events stop: the final build is shown, failed as it is.
    let builder = lp.idle.take().unwrap();
    lp.running = true;
    lp.touched = false;
    lp.done(builder, Some(built(3, false)), false);
    let now = lp.state.current();
    assert_eq!((now.generation, now.error.is_some()), (3, true), "the final failed build is not shown");
}

#[test]
fn only_an_address_off_loopback_is_warned_about() {
    let warned = |a: &str| exposure_warning(a.parse().unwrap());
    for quiet in ["127.0.0.1:1111", "127.3.4.5:1111", "[::1]:1111", "[::ffff:127.0.0.1]:1111"] {
        assert_eq!(warned(quiet), None, "{quiet}");
    }
    for open in ["0.0.0.0:1111", "[::]:1111", "192.0.2.7:1111", "[2001:db8::1]:1111"] {
        let w = warned(open).unwrap_or_else(|| panic!("{open} is not warned about"));
        assert!(w.starts_with("warning: ") && w.contains("drafts") && w.contains("port 1111"), "{w}");
    }
    assert!(warned("0.0.0.0:1111").unwrap().contains("every interface") && warned("[::]:1").unwrap().contains("--interface ::1"));
}

/// What the loop printed so far (and forget it).
fn printed(lp: &mut Loop) -> String {
    match &mut lp.terminal {
        Terminal::Kept(kept) => std::mem::take(kept),
        Terminal::Stderr => unreachable!("the tests keep what is printed"),
    }
}

/// A good build after a failed one that was dropped (a newer save overtook it) fixes
/// nothing the author saw: its line says "built", not "— fixed"; after a failure shown,
/// it does say "— fixed".
#[test]
fn only_a_failure_that_was_shown_is_announced_as_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let essay = dir.path().join("essays/small.md");
    std::fs::create_dir_all(essay.parent().unwrap()).unwrap();
    std::fs::write(dir.path().join("countersign.yaml"), "title: Fixture\n").unwrap();
    let good = "---\ntitle: Small\n---\n\nSome prose.\n";
    let (mut lp, mut builder) = serving_good(dir.path());
    // Build `text` and hand the result to the loop, a newer save having overtaken the build
    // (after MAX_WAIT) or not; events still coming when stale (no build is started again).
    let finish = |lp: &mut Loop, mut builder: Box<Builder>, text: &str, stale: bool| {
        std::fs::write(&essay, text).unwrap();
        let built = builder.build(&lp.state, lp.published + 1).expect("a build with nothing to cancel");
        lp.running = true;
        lp.touched = stale;
        lp.discarding = stale.then(|| ago(MAX_WAIT * 2));
        lp.last_event = stale.then(|| ago(QUIET * 100));
        lp.done(builder, Some(built), stale);
        lp.idle.take().expect("the builder is idle again")
    };
    builder = finish(&mut lp, builder, "no front matter\n", true);
    assert_eq!(lp.state.current().generation, 1, "the stale failure was published");
    assert_eq!(printed(&mut lp), "", "a dropped build printed");
    builder = finish(&mut lp, builder, good, false);
    let line = printed(&mut lp);
    assert!(line.contains("built in") && !line.contains("fixed"), "after a failure never shown: {line}");
    builder = finish(&mut lp, builder, "no front matter\n", false);
    assert!(printed(&mut lp).contains("build failed"));
    finish(&mut lp, builder, good, false);
    let line = printed(&mut lp);
    assert!(line.contains("built in") && line.ends_with(" — fixed\n"), "after a failure shown: {line}");
}
