//! A CodeCup bot's clock counts only its own thinking. CodeCup's judge stops a program
//! (SIGSTOP) as soon as its move arrives and lets it run again only on its next turn; a bot
//! that reads its clock after writing the move may then book the opponent's whole turn as its
//! own. Here the bot is held inside its move's write for a second (its output pipe is full,
//! the same as being stopped right after the write) and then stopped for a second each time a
//! move arrives: none of that may be booked.
#![cfg(target_os = "linux")]

mod common;

use bots::game::{ActionList, Game};
use bots::zuniq::Zuniq;
use common::one_at_a_time;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A pipe that holds one page and is already full: whatever the bot writes next blocks until
/// the test reads.
fn full_pipe() -> (File, OwnedFd) {
    let mut fds = [0; 2];
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0, "pipe2");
    let (read_end, write_end) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let size = unsafe { libc::fcntl(write_end.as_raw_fd(), libc::F_SETPIPE_SZ, 4096) };
    assert!(size >= 4096, "F_SETPIPE_SZ: {size}");
    let mut filler = vec![b'#'; size as usize - 1];
    filler.push(b'\n');
    File::from(write_end.try_clone().unwrap()).write_all(&filler).unwrap();
    (File::from(read_end), write_end)
}

fn signal(pid: u32, signal: libc::c_int) {
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, signal) }, 0);
}

/// The "N ms used" of every move the bot logged.
fn booked_ms(log: &str) -> Vec<u64> {
    log.lines()
        .filter(|l| l.starts_with("play "))
        .map(|l| {
            let used = l.split(" ms used").next().unwrap().rsplit(' ').next().unwrap();
            used.parse().unwrap_or_else(|_| panic!("no booked time in {l:?}"))
        })
        .collect()
}

#[test]
fn a_bot_stopped_after_its_moves_books_only_its_own_thinking() {
    let _serial = one_at_a_time();
    let (stdout, write_end) = full_pipe();
    let mut bot = Command::new(common::exe())
        .args(["play", "zuniq", "--engine", "random", "--seed", "3"])
        .stdin(Stdio::piped())
        .stdout(Stdio::from(write_end))
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cupzero play");
    let pid = bot.id();
    let mut input = bot.stdin.take().unwrap();
    let mut output = BufReader::new(stdout);
    let mut line = String::new();
    output.read_line(&mut line).unwrap();
    assert!(line.starts_with('#'), "the filler comes first");

    input.write_all(b"Start\n").unwrap();
    let mut state = Zuniq::new();
    let mut legal = ActionList::new();
    const MOVES: usize = 3;
    for own_move in 0..MOVES {
        if own_move == 0 {
            // The bot answers at once and then waits in its write while the pipe is full.
            std::thread::sleep(Duration::from_secs(1));
        }
        line.clear();
        output.read_line(&mut line).unwrap();
        signal(pid, libc::SIGSTOP);
        std::thread::sleep(Duration::from_secs(1));
        signal(pid, libc::SIGCONT);
        let ours = Zuniq::parse_action(line.trim().trim_end_matches('!')).unwrap_or_else(|e| panic!("{line:?}: {e}"));
        assert!(state.is_legal(ours), "{line:?} is legal");
        state.apply(ours);
        state.legal_actions(&mut legal);
        writeln!(input, "{}", Zuniq::format_action(legal[0])).unwrap();
        state.apply(legal[0]);
    }
    line.clear();
    output.read_line(&mut line).unwrap();
    input.write_all(b"Quit\n").unwrap();
    drop(input);
    let mut log = String::new();
    bot.stderr.take().unwrap().read_to_string(&mut log).unwrap();
    assert!(bot.wait().unwrap().success(), "{log}");
    let booked = booked_ms(&log);
    assert_eq!(booked.len(), MOVES + 1, "{log}");
    // A random player thinks for microseconds; four seconds passed while it was held or stopped.
    assert!(*booked.last().unwrap() < 300, "booked {booked:?} ms for instant moves:\n{log}");
}
