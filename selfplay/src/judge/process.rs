//! An external player program: spawned, fed lines, read with a time limit, killed at the end.
//! The transcript of everything exchanged can be kept for records and tests.
//!
//! No program can hang the judge or outlive its game: each runs in a process group of its own,
//! which the judge kills whole (children that hold a pipe included); its output is read in
//! bounded lines through a bounded queue, so a flood of output costs no memory; and a line
//! that arrives when it is not the program's turn is a fault.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How to start a player: a program and its arguments (a shell command goes through `sh -c`).
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerCommand {
    /// Short name for reports.
    pub label: String,
    pub program: String,
    pub args: Vec<String>,
}

impl PlayerCommand {
    /// A command line run by the shell; `exec` so that killing the player kills the program.
    pub fn shell(command_line: &str) -> Self {
        PlayerCommand {
            label: command_line.to_string(),
            program: "sh".into(),
            args: vec!["-c".into(), format!("exec {command_line}")],
        }
    }

    /// [`PlayerCommand::shell`] once the program that `command_line` starts with is found: a
    /// path to an executable file, or a name on `PATH` (what `exec` runs). A mistyped path is
    /// then one error before the match, not a match of crashed games.
    pub fn checked_shell(command_line: &str) -> Result<Self, String> {
        let program = command_line.split_whitespace().next().unwrap_or("");
        let runnable = |path: &std::path::Path| std::fs::metadata(path).is_ok_and(|m| m.is_file() && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0);
        let found = if program.contains('/') {
            runnable(std::path::Path::new(program))
        } else {
            std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| runnable(&dir.join(program))))
        };
        if found {
            Ok(Self::shell(command_line))
        } else {
            Err(format!("program {program:?} not found (or not executable)"))
        }
    }
}

/// Why a player lost without the rules deciding it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FaultKind {
    Timeout,
    Crash,
    Illegal,
    Garbled,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fault {
    pub kind: FaultKind,
    pub detail: String,
}

const STDERR_TAIL: usize = 2048;
/// The longest answer line read; a longer one is a fault (no contest move comes near it).
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// Reads (batches of lines) queued ahead of the judge; a program that writes more blocks on
/// its own pipe.
const BATCHES_QUEUED: usize = 16;

/// What the output reader hands on: a line, or why the output cannot be read on.
type OutputLine = Result<String, String>;

pub struct PlayerProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    /// The lines of one read of the program's output travel together, so that lines written
    /// at once are seen at once: an answer and the extra line after it cannot be told apart by
    /// how the reader thread happened to be scheduled.
    batches: Receiver<Vec<OutputLine>>,
    /// Lines of a batch not taken yet, in order.
    ready: VecDeque<OutputLine>,
    /// Stopped (SIGSTOP) whenever it is not this program's turn, as the CodeCup judge does,
    /// so that its clock sees only its own thinking.
    suspend_between_turns: bool,
    /// Output found queued when the judge sent new input to a suspended program: it was
    /// written after the program's answer, outside its turn. The next `receive` reports it.
    written_out_of_turn: Option<Fault>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    /// `> ` lines sent, `< ` lines received, when recording.
    transcript: Option<Vec<String>>,
    pub timing: ResponseTiming,
}

/// How long a player took to answer, for limits per turn (first and later) and per game.
#[derive(Clone, Debug, Default)]
pub struct ResponseTiming {
    pub answers: u32,
    pub first: Duration,
    pub slowest_later: Duration,
    pub total: Duration,
    /// Every answer after the first, in microseconds (for percentiles against the limit).
    pub later_us: Vec<u32>,
    /// The program's peak resident memory (Linux's VmHWM) when it last answered, in KiB; 0
    /// where it cannot be read.
    pub peak_kib: u64,
}

impl ResponseTiming {
    fn record(&mut self, took: Duration) {
        if self.answers == 0 {
            self.first = took;
        } else {
            self.slowest_later = self.slowest_later.max(took);
            self.later_us.push(took.as_micros().min(u32::MAX as u128) as u32);
        }
        self.answers += 1;
        self.total += took;
    }
}

impl PlayerProcess {
    /// Starts the program. With `suspend_between_turns` it is stopped at once and runs only
    /// while the judge waits for its answer.
    pub fn spawn(command: &PlayerCommand, record: bool, suspend_between_turns: bool) -> Result<Self, String> {
        let mut child = Command::new(&command.program);
        child.args(&command.args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
        // A judge killed mid-game (a time limit, Ctrl-C) takes its programs with it: in their
        // own process group they would miss its signal, and one stopped between turns would
        // wait forever.
        #[cfg(target_os = "linux")]
        unsafe {
            child.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let mut child = child
            .spawn()
            .map_err(|e| format!("cannot start {:?}: {e}", command.label))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, batches) = mpsc::sync_channel(BATCHES_QUEUED);
        std::thread::spawn(move || read_lines(stdout, &tx));
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        let mut stderr = child.stderr.take().expect("piped stderr");
        let tail = Arc::clone(&stderr_tail);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut t = tail.lock().unwrap();
                t.extend_from_slice(&buf[..n]);
                let excess = t.len().saturating_sub(STDERR_TAIL);
                t.drain(..excess);
            }
        });
        let process = PlayerProcess {
            stdin: child.stdin.take(),
            child,
            batches,
            ready: VecDeque::new(),
            suspend_between_turns,
            written_out_of_turn: None,
            stderr_tail,
            transcript: record.then(Vec::new),
            timing: ResponseTiming::default(),
        };
        if suspend_between_turns {
            process.signal(libc::SIGSTOP);
        }
        Ok(process)
    }

    /// Sends `signal` to the program's process group (its children too).
    fn signal(&self, signal: libc::c_int) {
        // The group was made with the child's pid as its id; a group already gone is fine.
        let group = self.child.id() as libc::pid_t;
        unsafe {
            libc::kill(-group, signal);
        }
    }

    /// Lets a suspended program run again (to read `Quit`, say).
    pub fn resume(&self) {
        if self.suspend_between_turns {
            self.signal(libc::SIGCONT);
        }
    }

    /// Sends lines (each ending in a newline). A player that has closed its input is not at
    /// fault yet: it may still have answered; the following read decides.
    pub fn send(&mut self, text: &str) {
        // A suspended program cannot answer this input before `receive` lets it run, so any
        // line already queued was written outside its turn. (A program that runs all along may
        // answer at once; its lines are read in order, as CodinGame reads them.)
        if self.suspend_between_turns && self.written_out_of_turn.is_none() {
            self.written_out_of_turn = match self.next_line(None) {
                Ok(Ok(extra)) => Some(Fault { kind: FaultKind::Garbled, detail: format!("wrote {:?} when it was not its turn", clip(&extra)) }),
                Ok(Err(unreadable)) => Some(Fault { kind: FaultKind::Garbled, detail: unreadable }),
                Err(_) => None,
            };
        }
        if let Some(t) = &mut self.transcript {
            t.extend(text.lines().map(|l| format!("> {l}")));
        }
        let ok = match &mut self.stdin {
            Some(stdin) => stdin.write_all(text.as_bytes()).and_then(|_| stdin.flush()).is_ok(),
            None => false,
        };
        if !ok {
            self.stdin = None;
        }
    }

    /// Waits for one line for at most `limit` (measured from this call, right after `send`).
    /// A suspended program runs from this call until its line arrives.
    pub fn receive(&mut self, limit: Duration) -> Result<String, Fault> {
        if let Some(fault) = self.written_out_of_turn.take() {
            return Err(fault);
        }
        self.resume();
        let start = Instant::now();
        let result = self.next_line(Some(limit));
        let took = start.elapsed();
        if self.suspend_between_turns {
            self.signal(libc::SIGSTOP);
        }
        match result {
            Ok(Ok(line)) => {
                self.timing.record(took);
                self.timing.peak_kib = self.timing.peak_kib.max(peak_resident_kib(self.child.id()));
                if let Some(t) = &mut self.transcript {
                    t.push(format!("< {line}"));
                }
                Ok(line)
            }
            Ok(Err(unreadable)) => Err(Fault { kind: FaultKind::Garbled, detail: unreadable }),
            Err(RecvTimeoutError::Timeout) => Err(Fault {
                kind: FaultKind::Timeout,
                detail: format!("no answer within {} ms", limit.as_millis()),
            }),
            Err(RecvTimeoutError::Disconnected) => {
                // Give the process a moment to report its exit status and last words.
                std::thread::sleep(Duration::from_millis(20));
                let status = self.child.try_wait().ok().flatten().map(|s| s.to_string()).unwrap_or_else(|| "output closed".into());
                let last_words = self.stderr_last_line();
                let detail = if last_words.is_empty() { status } else { format!("{status}; stderr: {last_words}") };
                Err(Fault { kind: FaultKind::Crash, detail })
            }
        }
    }

    /// The next line read: at once (`None`: whatever is queued now) or within `limit`.
    fn next_line(&mut self, limit: Option<Duration>) -> Result<OutputLine, RecvTimeoutError> {
        if self.ready.is_empty() {
            let batch = match limit {
                Some(limit) => self.batches.recv_timeout(limit)?,
                None => self.batches.try_recv().map_err(|e| match e {
                    TryRecvError::Empty => RecvTimeoutError::Timeout,
                    TryRecvError::Disconnected => RecvTimeoutError::Disconnected,
                })?,
            };
            self.ready.extend(batch);
        }
        Ok(self.ready.pop_front().expect("a batch holds at least one line"))
    }

    fn stderr_last_line(&self) -> String {
        let tail = self.stderr_tail.lock().unwrap();
        String::from_utf8_lossy(&tail).lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string()
    }

    pub fn take_transcript(&mut self) -> Vec<String> {
        self.transcript.take().unwrap_or_default()
    }
}

/// The peak resident memory of process `pid` so far (`VmHWM` of `/proc/PID/status`), in KiB;
/// 0 where there is no such file (not Linux, the process gone).
pub fn peak_resident_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| status.lines().find_map(|l| l.strip_prefix("VmHWM:").and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())))
        .unwrap_or(0)
}

/// Reads `output` line by line into `queue` until it ends, the judge stops listening, or a
/// line is too long; bytes that are not UTF-8 are replaced, not fatal.
fn read_lines(mut output: impl Read, queue: &mpsc::SyncSender<Vec<OutputLine>>) {
    let mut pending: Vec<u8> = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = match output.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        pending.extend_from_slice(&buf[..n]);
        let mut batch = Vec::new();
        while let Some(end) = pending.iter().position(|&b| b == b'\n') {
            batch.push(Ok(String::from_utf8_lossy(&pending[..end]).into_owned()));
            pending.drain(..=end);
        }
        let too_long = pending.len() > MAX_LINE_BYTES;
        if too_long {
            batch.push(Err(format!("a line longer than {MAX_LINE_BYTES} bytes")));
        }
        if !batch.is_empty() && queue.send(batch).is_err() || too_long {
            return;
        }
    }
}

/// The start of a long line, for a fault's detail.
fn clip(line: &str) -> String {
    line.chars().take(40).collect()
}

impl Drop for PlayerProcess {
    /// Kills the program's whole process group (a stopped program dies too) and reaps it.
    fn drop(&mut self) {
        self.stdin = None;
        self.signal(libc::SIGKILL);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out its chunks one `read` at a time, as a pipe hands out writes.
    struct Chunks(VecDeque<Vec<u8>>);

    impl Read for Chunks {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some(chunk) = self.0.pop_front() else { return Ok(0) };
            buf[..chunk.len()].copy_from_slice(&chunk);
            Ok(chunk.len())
        }
    }

    fn batches_of(chunks: &[&[u8]]) -> Vec<Vec<OutputLine>> {
        let (tx, rx) = mpsc::sync_channel(BATCHES_QUEUED);
        read_lines(Chunks(chunks.iter().map(|c| c.to_vec()).collect()), &tx);
        drop(tx);
        rx.iter().collect()
    }

    #[test]
    fn lines_written_at_once_travel_together() {
        let batches = batches_of(&[b"A1h\nB1", b"h\n", b"C1h\n"]);
        assert_eq!(batches, vec![vec![Ok("A1h".to_string())], vec![Ok("B1h".to_string())], vec![Ok("C1h".to_string())]]);
        let together = batches_of(&[b"A1h\nB1h\n"]);
        assert_eq!(together, vec![vec![Ok("A1h".to_string()), Ok("B1h".to_string())]]);
    }

    #[test]
    fn an_endless_line_ends_the_reading_with_a_reason() {
        let chunk = vec![b'x'; 4096];
        let chunks: Vec<&[u8]> = std::iter::repeat(chunk.as_slice()).take(MAX_LINE_BYTES / 4096 + 2).collect();
        let batches = batches_of(&chunks);
        assert_eq!(batches.len(), 1);
        assert!(matches!(&batches[0][..], [Err(reason)] if reason.contains("longer than")));
    }
}
