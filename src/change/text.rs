//! The change set as sections of rows, written as terminal text here and as an HTML page by
//! `page.rs`: one layout, two escapes (`output::terminal` here, `output::markup` there).

use super::configs::{DeviceChange, DeviceStatus, FileChange};
use super::files::{self as other, FileStatus};
use super::layout::{Mark, Row, Section, row};
use super::{ChangeSet, Verdict, order};
use crate::output::terminal;

impl Verdict {
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Unchanged => "no change",
            Verdict::Safe => "safe changes only (nothing disruptive)",
            Verdict::Disruptive => "disruptive changes or renumbering",
        }
    }
}

/// The headline: the verdict and the exit code.
pub fn headline(cs: &ChangeSet) -> String {
    let v = cs.verdict();
    format!("railyard diff: {} (exit {})", v.words(), v.exit_code())
}

fn file_rows(f: &FileChange, rows: &mut Vec<Row>) {
    if let Some(n) = f.lines {
        let (what, mark) = match f.status {
            DeviceStatus::Removed => ("removed", Mark::Disruptive),
            _ => ("new", Mark::Add),
        };
        rows.push(row(
            mark,
            &["", &f.file, &format!("{what} file, {n} lines")],
        ));
        return;
    }
    rows.push(row(
        Mark::Plain,
        &[
            "",
            &f.file,
            &format!("-{} +{} lines", f.removed.len(), f.added.len()),
        ],
    ));
    for d in &f.disruptive {
        rows.push(row(Mark::Disruptive, &["", "disruptive", d]));
    }
    for s in &f.sessions_removed {
        rows.push(row(Mark::Remove, &["", "session removed", s]));
    }
    for s in &f.sessions_added {
        rows.push(row(Mark::Add, &["", "session added", s]));
    }
    for l in &f.removed {
        rows.push(row(Mark::Remove, &["", "-", l]));
    }
    for l in &f.added {
        rows.push(row(Mark::Add, &["", "+", l]));
    }
}

fn devices(devs: &[DeviceChange]) -> Section {
    let mut rows = Vec::new();
    for d in devs {
        let (status, mark) = match d.status {
            DeviceStatus::Added => ("new device", Mark::Add),
            DeviceStatus::Removed => ("removed device", Mark::Disruptive),
            DeviceStatus::Changed if d.disturbs() => ("changed, disruptive", Mark::Disruptive),
            DeviceStatus::Changed => ("changed", Mark::Plain),
        };
        rows.push(row(mark, &[&d.device, status]));
        for f in &d.files {
            file_rows(f, &mut rows);
        }
    }
    Section::new(format!("Switch configs: {} devices", devs.len()), rows)
}

fn numbering(cs: &ChangeSet) -> Section {
    let n = &cs.numbering;
    let mut rows = Vec::new();
    let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    for c in &n.renumbered {
        let change = format!("{} → {}", show(&c.old), show(&c.new));
        rows.push(row(
            Mark::Disruptive,
            &["renumbered", &c.owner, &c.what, &change],
        ));
    }
    for c in &n.gone {
        rows.push(row(
            Mark::Disruptive,
            &["gone", &c.owner, &c.what, &show(&c.old)],
        ));
    }
    for c in &n.tenant_new {
        rows.push(row(Mark::Add, &["new", &c.owner, &c.what, &show(&c.new)]));
    }
    Section::new(
        format!(
            "Numbering: {} renumbered, {} gone, {} new tenant numbers, {} new device numbers",
            n.renumbered.len(),
            n.gone.len(),
            n.tenant_new.len(),
            n.device_new
        ),
        rows,
    )
}

fn tenants(cs: &ChangeSet) -> Section {
    let mut rows = Vec::new();
    for m in &cs.tenants {
        if !m.leave.is_empty() {
            let who = m.leave.join(" ");
            let what = format!(
                "{} {}(s) leave: their traffic in the tenant stops",
                m.leave.len(),
                m.kind
            );
            rows.push(row(Mark::Disruptive, &["leave", &m.tenant, &what, &who]));
        }
        if !m.join.is_empty() {
            let who = m.join.join(" ");
            let what = format!("{} {}(s) join", m.join.len(), m.kind);
            rows.push(row(Mark::Add, &["join", &m.tenant, &what, &who]));
        }
    }
    Section::new(
        format!("Tenant membership: {} changes", cs.tenants.len()),
        rows,
    )
}

fn parts(cs: &ChangeSet) -> Section {
    let rows = cs
        .parts
        .iter()
        .map(|p| {
            let mark = if p.order_delta >= 0 {
                Mark::Add
            } else {
                Mark::Remove
            };
            let delta = format!("{:+}", p.order_delta);
            let counts = format!("order {} → {}", p.old.order, p.new.order);
            row(
                mark,
                &[&delta, &p.part, &p.category, &p.description, &counts],
            )
        })
        .collect();
    Section::new(
        format!("Parts to order: {} part numbers change", cs.parts.len()),
        rows,
    )
}

/// The sections of a change set, in work order; racks first where a rack-scale system gains or
/// loses some.
pub fn sections(cs: &ChangeSet) -> Vec<Section> {
    let mut out = Vec::new();
    if !cs.racks.is_empty() {
        out.push(racks(cs));
    }
    out.extend(order::avoidable(&cs.cables));
    out.extend([
        order::cables(&cs.cables),
        devices(&cs.devices),
        numbering(cs),
        tenants(cs),
        parts(cs),
    ]);
    out.extend(order::swaps(&cs.swaps));
    out.extend([files(&cs.files)]);
    out
}

fn racks(cs: &ChangeSet) -> Section {
    let r = &cs.racks;
    let rows = r
        .added
        .iter()
        .map(|n| row(Mark::Add, &["add", n, "a new NVLink domain and its trays"]))
        .chain(r.removed.iter().map(|n| {
            row(
                Mark::Disruptive,
                &["remove", n, "the NVLink domain and every tray in it go"],
            )
        }))
        .collect();
    Section::new(
        format!(
            "Racks (NVLink domains): {} added, {} removed",
            r.added.len(),
            r.removed.len()
        ),
        rows,
    )
}

/// Every other file that differs, by group then path: nothing a build writes goes unsaid.
fn files(changes: &[other::FileChange]) -> Section {
    let rows = changes
        .iter()
        .map(|f| {
            let (what, mark) = match (f.status, f.disruptive) {
                (_, true) => ("cuts traffic", Mark::Disruptive),
                (FileStatus::Added, _) => ("added", Mark::Add),
                (FileStatus::Removed, _) => ("removed", Mark::Remove),
                (FileStatus::Changed, _) => ("changed", Mark::Plain),
            };
            let lines = format!("-{} +{} lines", f.lines_removed, f.lines_added);
            row(mark, &[&f.group, what, &f.path, &lines])
        })
        .collect();
    Section::new(format!("Other files that differ: {}", changes.len()), rows)
}

/// The change set as terminal text: every value with its control characters shown escaped.
pub fn render(cs: &ChangeSet) -> String {
    let mut out = String::new();
    out.push_str(&headline(cs));
    out.push('\n');
    for s in std::iter::once(order::summary(cs)).chain(sections(cs)) {
        out.push('\n');
        out.push_str(&terminal::escape_inline(&s.title));
        out.push('\n');
        for r in &s.rows {
            let cells: Vec<String> = r
                .cells
                .iter()
                .map(|c| terminal::escape_inline(c).into_owned())
                .collect();
            out.push_str("  ");
            out.push_str(cells.join("  ").trim_start());
            out.push('\n');
        }
    }
    out
}
