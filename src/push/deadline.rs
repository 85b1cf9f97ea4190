//! A deadline on a whole exchange with a peer, not on each read: libssh2's timeout (and a
//! socket's) bounds one blocking wait, so a peer that keeps sending — SSH banner lines forever,
//! endless command output — is never late for any single read and would hold push forever. A
//! [`Deadline`] shuts the socket down when its time is up; every read then fails at once, and
//! the caller reports the timeout it was given.

use std::net::{Shutdown, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

/// Armed while it lives; dropping it disarms it.
pub(super) struct Deadline {
    disarm: Option<mpsc::Sender<()>>,
    fired: Arc<AtomicBool>,
    watcher: Option<JoinHandle<()>>,
}

impl Deadline {
    /// Shut `socket` down (both ways) `after` from now, unless disarmed first. `None` when the
    /// socket cannot be shared with the watcher (then the caller has no deadline to offer and
    /// must refuse to go on).
    pub(super) fn arm(socket: &TcpStream, after: Duration) -> Option<Deadline> {
        let socket = socket.try_clone().ok()?;
        let (disarm, disarmed) = mpsc::channel::<()>();
        let fired = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&fired);
        let watcher = std::thread::Builder::new()
            .name("push-deadline".into())
            .spawn(move || {
                // A disarm (or the sender dropped) ends the wait early; only a timeout fires.
                if let Err(RecvTimeoutError::Timeout) = disarmed.recv_timeout(after) {
                    flag.store(true, Ordering::SeqCst);
                    let _ = socket.shutdown(Shutdown::Both);
                }
            })
            .ok()?;
        Some(Deadline {
            disarm: Some(disarm),
            fired,
            watcher: Some(watcher),
        })
    }

    /// Whether the time ran out (the socket is shut down: the session is unusable).
    pub(super) fn fired(&self) -> bool {
        self.fired.load(Ordering::SeqCst)
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        drop(self.disarm.take());
        if let Some(w) = self.watcher.take() {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpListener;

    #[test]
    fn a_read_that_never_ends_is_cut_by_the_deadline() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let peer = std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            // Never late for a single read: one line every few milliseconds, forever (until
            // railyard's side goes away).
            while std::io::Write::write_all(&mut s, b"not ssh\r\n").is_ok() {
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        let mut s = TcpStream::connect(addr).unwrap();
        // Far beyond the deadline: on a loaded machine a starved peer thread must not end the
        // loop by a read timeout before the deadline fires (it once did at 5 s).
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        let d = Deadline::arm(&s, Duration::from_millis(200)).unwrap();
        let mut buf = [0u8; 64];
        // Without the deadline this loop would never end.
        let end = loop {
            match s.read(&mut buf) {
                Ok(n) if n > 0 => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                other => break other,
            }
        };
        assert!(d.fired(), "{end:?}");
        drop(s);
        peer.join().unwrap();
    }

    #[test]
    fn a_disarmed_deadline_never_fires() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let s = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let d = Deadline::arm(&s, Duration::from_secs(3600)).unwrap();
        assert!(!d.fired());
        // Dropping returns at once: the watcher is woken, not waited out.
        drop(d);
        assert!(s.peer_addr().is_ok());
    }
}
