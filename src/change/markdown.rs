//! The change set as a pull-request comment (`railyard diff --format markdown`): the verdict
//! and a table of counts first, then what disturbs the running cluster, then every section's
//! rows folded (`<details>`), cut before the comment limit. GitHub holds at most 65,536
//! characters in a comment body; the plan stops adding rows at [`BUDGET`] and says how many it
//! left out and where the whole plan is (`--format json`, `--out FILE`). Every value goes
//! through `output::markdown::text`.

use super::layout::{Mark, Row, Section};
use super::text::sections;
use super::{ChangeSet, cables::Action};
use crate::output::markdown::text as md;

/// Characters the comment may reach before rows are left out (the limit is 65,536; the rest is
/// the closing lines).
pub const BUDGET: usize = 60_000;

/// The counts table: what the JSON names, one row each.
fn counts(cs: &ChangeSet) -> Vec<(&'static str, usize)> {
    let steps = |a: Action| cs.cables.iter().filter(|s| s.action == a).count();
    let n = &cs.numbering;
    vec![
        ("cables to remove", steps(Action::Remove)),
        ("cables to replace", steps(Action::Replace)),
        ("cables renamed", steps(Action::Rename)),
        ("cables to move", steps(Action::Move)),
        ("cables to add", steps(Action::Add)),
        ("devices whose config changes", cs.devices.len()),
        (
            "devices disturbed",
            cs.devices.iter().filter(|d| d.disturbs()).count(),
        ),
        ("numbers renumbered", n.renumbered.len()),
        ("numbers gone", n.gone.len()),
        ("new tenant numbers", n.tenant_new.len()),
        ("new device numbers", n.device_new),
        ("tenant membership changes", cs.tenants.len()),
        ("part numbers changing", cs.parts.len()),
        ("parts the replacements swap", cs.swaps.len()),
        ("other files differing", cs.files.len()),
        ("racks added", cs.racks.added.len()),
        ("racks removed", cs.racks.removed.len()),
    ]
}

fn table_row(cells: &[String]) -> String {
    let mut s = String::from("|");
    for c in cells {
        s.push(' ');
        s.push_str(&md(c));
        s.push_str(" |");
    }
    s.push('\n');
    s
}

/// Adds `line` if it fits the budget; `false` (nothing added) when it does not.
fn push(out: &mut String, line: &str) -> bool {
    if out.len() + line.len() > BUDGET {
        return false;
    }
    out.push_str(line);
    true
}

/// The comment. `full`: where the whole plan is, said when rows are left out; `warnings`: what
/// the reader must know about the comparison itself (the sides made by different railyards),
/// each a quoted line under the verdict.
pub fn render(cs: &ChangeSet, full: &str, warnings: &[String]) -> String {
    let v = cs.verdict();
    let mut out = format!(
        "**railyard diff: {} (exit {})**\n\n",
        md(v.words()),
        v.exit_code()
    );
    for w in warnings {
        out.push_str(&format!("> **Warning:** {}\n\n", md(w)));
    }
    out.push_str("| change | count |\n|---|---:|\n");
    for (what, n) in counts(cs) {
        out.push_str(&format!("| {} | {n} |\n", md(what)));
    }
    let secs = sections(cs);
    let mut left_out = 0usize;
    let disruptive: Vec<(&Section, &Row)> = secs
        .iter()
        .flat_map(|s| s.rows.iter().map(move |r| (s, r)))
        .filter(|(_, r)| matches!(r.mark, Mark::Disruptive | Mark::Remove))
        .collect();
    if !disruptive.is_empty() {
        out.push_str(&format!(
            "\n### Disturbs the running cluster: {}\n\n",
            disruptive.len()
        ));
        for (s, r) in &disruptive {
            let what = s.title.split(':').next().unwrap_or_default();
            let line = format!("- {}: {}\n", md(what), md(&r.cells.join(" ")));
            if !push(&mut out, &line) {
                left_out += 1;
            }
        }
    }
    for s in secs.iter().filter(|s| !s.rows.is_empty()) {
        let open = format!("\n<details><summary>{}</summary>\n\n", md(&s.title));
        if !push(&mut out, &open) {
            left_out += s.rows.len();
            continue;
        }
        let width = s.rows.iter().map(|r| r.cells.len()).max().unwrap_or(1);
        out.push_str(&format!(
            "|{}\n|{}\n",
            " |".repeat(width),
            "---|".repeat(width)
        ));
        for r in &s.rows {
            if !push(&mut out, &table_row(&r.cells)) {
                left_out += 1;
            }
        }
        out.push_str("\n</details>\n");
    }
    if left_out > 0 {
        out.push_str(&format!(
            "\n{left_out} rows left out to fit a pull-request comment; the whole plan: {}\n",
            md(full)
        ));
    }
    out
}
