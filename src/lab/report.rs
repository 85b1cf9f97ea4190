//! The verify report: per check a status, a one-line summary and every item checked; text for
//! people (failures spelled out, passes counted), JSON for CI (everything).

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    /// Not applicable to this lab (no tenants, no second leaf), with the reason in the detail.
    Skip,
    /// Applicable but could not be tested here (the kernel lacks a feature the check needs):
    /// never counted as a pass, and it makes the whole verify incomplete.
    Untested,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
            Status::Untested => "UNTESTED",
        }
    }
}

/// One thing checked (a session, a route, a ping).
#[derive(Clone, Debug, Serialize)]
pub struct Item {
    pub subject: String,
    pub status: Status,
    pub detail: String,
}

impl Item {
    pub fn new(subject: impl Into<String>, status: Status, detail: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            status,
            detail: detail.into(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub name: String,
    pub status: Status,
    pub summary: String,
    pub items: Vec<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matrix: Option<Matrix>,
}

impl Check {
    /// A check whose status follows its items: any failure fails it; else an untested item
    /// leaves it untested; no item, or only skipped ones, skips it.
    pub fn from_items(name: &str, summary: String, items: Vec<Item>) -> Self {
        let status = if items.iter().any(|i| i.status == Status::Fail) {
            Status::Fail
        } else if items.iter().any(|i| i.status == Status::Untested) {
            Status::Untested
        } else if items.iter().any(|i| i.status == Status::Pass) {
            Status::Pass
        } else {
            Status::Skip
        };
        Self {
            name: name.into(),
            status,
            summary,
            items,
            matrix: None,
        }
    }

    /// A check that could not run, and why.
    pub fn skipped(name: &str, why: impl Into<String>) -> Self {
        let why = why.into();
        Self {
            name: name.into(),
            status: Status::Skip,
            summary: why.clone(),
            items: vec![Item::new(name, Status::Skip, why)],
            matrix: None,
        }
    }

    /// A check that applies to the lab but could not run here, and why.
    pub fn untested(name: &str, why: impl Into<String>) -> Self {
        let why = why.into();
        Self {
            name: name.into(),
            status: Status::Untested,
            summary: why.clone(),
            items: vec![Item::new(name, Status::Untested, why)],
            matrix: None,
        }
    }

    pub fn count(&self, s: Status) -> usize {
        self.items.iter().filter(|i| i.status == s).count()
    }
}

/// Reachability between groups (tenants, and the nodes in no tenant).
#[derive(Clone, Debug, Serialize)]
pub struct Matrix {
    pub groups: Vec<String>,
    pub cells: Vec<Cell>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    pub from: String,
    pub to: String,
    /// Node pairs tested.
    pub pairs: usize,
    /// Pairs that reached each other.
    pub reached: usize,
    /// Whether the design says these groups reach each other.
    pub expected: bool,
}

impl Cell {
    pub fn ok(&self) -> bool {
        if self.expected {
            self.reached == self.pairs
        } else {
            self.reached == 0
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub lab: String,
    /// Every check passed or did not apply: nothing failed and nothing went untested.
    pub passed: bool,
    /// No applicable check went untested (false: the result says INCOMPLETE, never PASS).
    pub complete: bool,
    pub checks: Vec<Check>,
    pub elapsed_ms: u64,
    /// What `--scale-down` kept and dropped, and what the lab does not model.
    pub scope: Vec<String>,
}

impl Report {
    pub fn new(lab: String, checks: Vec<Check>, elapsed_ms: u64, scope: Vec<String>) -> Self {
        let complete = checks.iter().all(|c| c.status != Status::Untested);
        let passed = complete && checks.iter().all(|c| c.status != Status::Fail);
        Self {
            lab,
            passed,
            complete,
            checks,
            elapsed_ms,
            scope,
        }
    }

    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into());
        s.push('\n');
        s
    }

    /// Failures and skips spelled out; passes counted.
    pub fn to_text(&self) -> String {
        let mut out = format!("lab verify: {}\n", self.lab);
        for line in &self.scope {
            out.push_str(&format!("  scope: {line}\n"));
        }
        let width = self.checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
        for c in &self.checks {
            out.push_str(&format!(
                "{}  {:<width$}  {}\n",
                c.status.label(),
                c.name,
                c.summary
            ));
            // A skipped check's single item repeats its summary.
            let repeat = |i: &&Item| c.items.len() == 1 && i.detail == c.summary;
            for i in c
                .items
                .iter()
                .filter(|i| i.status != Status::Pass)
                .filter(|i| !repeat(i))
            {
                out.push_str(&format!(
                    "      {} {}: {}\n",
                    i.status.label().to_lowercase(),
                    i.subject,
                    i.detail
                ));
            }
            if let Some(m) = &c.matrix {
                out.push_str(&matrix_text(m));
            }
        }
        let n = |s: Status| self.checks.iter().filter(|c| c.status == s).count();
        let failed = n(Status::Fail) > 0;
        out.push_str(&format!(
            "result: {} ({} passed, {} failed, {} untested, {} not applicable) in {:.1} s\n",
            match (self.passed, failed) {
                (true, _) => "PASS",
                (false, true) => "FAIL",
                (false, false) => "INCOMPLETE",
            },
            n(Status::Pass),
            n(Status::Fail),
            n(Status::Untested),
            n(Status::Skip),
            self.elapsed_ms as f64 / 1000.0
        ));
        out
    }
}

/// Rows reach columns: `reached/pairs`, marked `ok` or `BAD` against the design.
fn matrix_text(m: &Matrix) -> String {
    let w = m.groups.iter().map(String::len).max().unwrap_or(0).max(4);
    let mut out = format!("      {:<w$}", "from \\ to");
    for g in &m.groups {
        out.push_str(&format!("  {g:>w$}"));
    }
    out.push('\n');
    for from in &m.groups {
        out.push_str(&format!("      {from:<w$}"));
        for to in &m.groups {
            let cell = m.cells.iter().find(|c| &c.from == from && &c.to == to);
            let text = match cell {
                Some(c) if c.pairs > 0 => format!(
                    "{}/{} {}",
                    c.reached,
                    c.pairs,
                    if c.ok() { "ok" } else { "BAD" }
                ),
                _ => "-".into(),
            };
            out.push_str(&format!("  {text:>w$}"));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_fails_on_any_failed_item_and_skips_when_nothing_ran() {
        let c = Check::from_items(
            "x",
            String::new(),
            vec![
                Item::new("a", Status::Pass, ""),
                Item::new("b", Status::Fail, "down"),
            ],
        );
        assert_eq!(c.status, Status::Fail);
        assert_eq!(
            Check::from_items("y", String::new(), vec![]).status,
            Status::Skip
        );
        let r = Report::new(
            "lab".into(),
            vec![c, Check::skipped("t", "no tenants")],
            1200,
            vec![],
        );
        assert!(!r.passed);
        let text = r.to_text();
        assert!(text.contains("fail b: down"), "{text}");
        // Nothing failed but a check that applies could not run: INCOMPLETE, never PASS.
        let r = Report::new(
            "lab".into(),
            vec![
                Check::from_items("ok", String::new(), vec![Item::new("a", Status::Pass, "")]),
                Check::untested("tenant-isolation", "NOT TESTED: no VXLAN in this kernel"),
            ],
            10,
            vec![],
        );
        assert!(!r.passed && !r.complete);
        assert!(
            r.to_text().contains("result: INCOMPLETE"),
            "{}",
            r.to_text()
        );
        assert!(r.to_json().contains("\"complete\": false"));
        assert!(text.contains("SKIP  t  no tenants"), "{text}");
        assert!(
            text.contains(
                "result: FAIL (0 passed, 1 failed, 0 untested, 1 not applicable) in 1.2 s"
            ),
            "{text}"
        );
    }

    #[test]
    fn matrix_cells_judge_against_the_design() {
        let m = Matrix {
            groups: vec!["a".into(), "b".into()],
            cells: vec![
                Cell {
                    from: "a".into(),
                    to: "a".into(),
                    pairs: 1,
                    reached: 1,
                    expected: true,
                },
                Cell {
                    from: "a".into(),
                    to: "b".into(),
                    pairs: 2,
                    reached: 1,
                    expected: false,
                },
            ],
        };
        let t = matrix_text(&m);
        assert!(t.contains("1/1 ok") && t.contains("1/2 BAD"), "{t}");
    }
}
