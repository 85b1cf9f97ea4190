//! Headless Chromium driven over the DevTools protocol (a WebSocket), for the tests that open
//! railyard's HTML deliverables in a real browser: load a page, evaluate script in it, and
//! collect console errors, uncaught exceptions and failed loads.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

use crate::prereq;

/// The Chromium binary, or `None` when the test `test` is skipped on purpose (tests/prereq).
pub fn chromium(test: &str) -> Option<PathBuf> {
    prereq::program(test, "chromium", "chromium")
}

pub struct Browser {
    child: Child,
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    id: u64,
    session: Option<String>,
    events: Vec<Value>,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.ws.close(None);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    pub fn launch(bin: &Path) -> Browser {
        let profile = tempfile::tempdir().expect("profile dir");
        let mut child = Command::new(bin)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--hide-scrollbars",
                "--remote-debugging-port=0",
                "--remote-allow-origins=*",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("chromium starts");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.split("DevTools listening on ").nth(1) {
                    let _ = tx.send(url.trim().to_string());
                }
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("chromium prints its DevTools address");
        // A printed sheet set of a large fabric comes back as one base64 PDF over 16 MiB
        // (tungstenite's default message limit): allow 64 MiB.
        let config = tungstenite::protocol::WebSocketConfig::default()
            .max_message_size(Some(64 << 20))
            .max_frame_size(Some(64 << 20));
        let (ws, _) = tungstenite::client::connect_with_config(url.as_str(), Some(config), 3)
            .expect("DevTools WebSocket");
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_read_timeout(Some(Duration::from_secs(120)))
                .expect("read timeout");
        }
        let mut b = Browser {
            child,
            ws,
            id: 0,
            session: None,
            events: Vec::new(),
            _profile: profile,
        };
        let target = b.call("Target.createTarget", json!({"url": "about:blank"}));
        let target_id = target["targetId"].as_str().expect("target id").to_string();
        let attached = b.call(
            "Target.attachToTarget",
            json!({"targetId": target_id, "flatten": true}),
        );
        b.session = Some(attached["sessionId"].as_str().expect("session").to_string());
        for domain in [
            "Runtime.enable",
            "Log.enable",
            "Network.enable",
            "Page.enable",
        ] {
            b.call(domain, json!({}));
        }
        b.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": false}),
        );
        b
    }

    fn read(&mut self) -> Value {
        loop {
            let msg = match self.ws.read() {
                // A signal (a child of another test thread exiting) interrupts the blocking read;
                // tungstenite keeps what it had buffered, so reading again resumes the message.
                Err(tungstenite::Error::Io(e)) if e.kind() == std::io::ErrorKind::Interrupted => {
                    continue;
                }
                m => m.expect("DevTools message"),
            };
            match msg {
                Message::Text(t) => return serde_json::from_str(t.as_str()).expect("json"),
                Message::Close(_) => panic!("DevTools closed the connection"),
                _ => {}
            }
        }
    }

    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.id += 1;
        let mut msg = json!({"id": self.id, "method": method, "params": params});
        if let Some(s) = &self.session {
            msg["sessionId"] = json!(s);
        }
        self.ws
            .send(Message::text(msg.to_string()))
            .expect("send to DevTools");
        loop {
            let v = self.read();
            if v["id"] == json!(self.id) {
                if let Some(e) = v.get("error") {
                    panic!("{method} failed: {e}");
                }
                return v["result"].clone();
            }
            if v.get("method").is_some() {
                self.events.push(v);
            }
        }
    }

    pub fn wait_event(&mut self, method: &str) {
        let deadline = Instant::now() + Duration::from_secs(120);
        while !self.events.iter().any(|e| e["method"] == method) {
            assert!(Instant::now() < deadline, "no {method} within 120 s");
            let v = self.read();
            if v.get("method").is_some() {
                self.events.push(v);
            }
        }
    }

    pub fn eval(&mut self, expr: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(
            r.get("exceptionDetails").is_none(),
            "{expr} threw: {}",
            r["exceptionDetails"]
        );
        r["result"]["value"].clone()
    }

    /// Call `function` (JavaScript source of a function of one parameter) in the page with `arg`
    /// as its argument, handed over as a JSON value rather than spliced into script text, and
    /// return its result by value.
    pub fn call_with(&mut self, function: &str, arg: Value) -> Value {
        let global = self.call("Runtime.evaluate", json!({"expression": "globalThis"}));
        let r = self.call(
            "Runtime.callFunctionOn",
            json!({"functionDeclaration": function, "objectId": global["result"]["objectId"],
                   "arguments": [{"value": arg}], "returnByValue": true, "awaitPromise": true}),
        );
        assert!(
            r.get("exceptionDetails").is_none(),
            "{function} threw: {}",
            r["exceptionDetails"]
        );
        r["result"]["value"].clone()
    }

    /// Navigate to a local file and wait for its load event (a page without a script).
    pub fn load(&mut self, path: &Path) {
        let url = format!("file://{}", path.display());
        self.events.clear();
        self.call("Page.navigate", json!({"url": url}));
        self.wait_event("Page.loadEventFired");
    }

    /// Load report.html and wait until its script has drawn everything.
    pub fn open(&mut self, path: &Path) {
        self.load(path);
        let deadline = Instant::now() + Duration::from_secs(120);
        while self.eval("!!(window.railyardReport && window.railyardReport.ready)") != json!(true) {
            assert!(
                Instant::now() < deadline,
                "the report's script never finished"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Console errors, uncaught exceptions and failed loads seen so far.
    pub fn errors(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| match e["method"].as_str()? {
                "Runtime.exceptionThrown" => Some(e["params"]["exceptionDetails"].to_string()),
                "Runtime.consoleAPICalled"
                    if matches!(e["params"]["type"].as_str(), Some("error" | "assert")) =>
                {
                    Some(e["params"]["args"].to_string())
                }
                "Log.entryAdded" if e["params"]["entry"]["level"] == "error" => {
                    Some(e["params"]["entry"].to_string())
                }
                "Network.loadingFailed" => Some(e["params"].to_string()),
                _ => None,
            })
            .collect()
    }

    /// Every URL the page requested.
    pub fn requests(&self) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| e["method"] == "Network.requestWillBeSent")
            .filter_map(|e| e["params"]["request"]["url"].as_str().map(str::to_string))
            .collect()
    }
}
