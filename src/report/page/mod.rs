//! `report.html`: the page skeleton is a minijinja template (`templates/report/`, auto-escaped)
//! filled with the overview ([`overview`]); the diagram and rack elevations come from the
//! escaping writer; the tables' data is one JSON block ([`data`]) that the page's script renders.
//! Split per pod, the same template makes the index and the pod pages ([`split`]): `page` says
//! which sections a page has, and each page carries only the script pieces its sections use.

mod data;
mod domains;
mod overview;
mod split;

use minijinja::{AutoEscape, Environment, Value, context};

use super::{Csv, LinkNames, diagram, racks};
use crate::artifacts::summary::Summary;
use crate::design::Design;
use overview::thousands;
pub use split::{PodPage, index_html};

const TEMPLATE: &str = include_str!("../../../templates/report/report.html.j2");
const FAILURE_DOMAINS: &str = include_str!("../../../templates/report/failure_domains.html.j2");
const CSS: &str = include_str!("../../../templates/report/report.css");
/// The page's script in pieces (`templates/report/js/`): the helpers and the table widget,
/// the cabling and port-map tables, the BOM, the diagram's interaction, the print sheets, the end.
const JS_CORE: &str = include_str!("../../../templates/report/js/core.js");
const JS_CABLING: &str = include_str!("../../../templates/report/js/cabling.js");
const JS_BOM: &str = include_str!("../../../templates/report/js/bom.js");
const JS_DIAGRAM: &str = include_str!("../../../templates/report/js/diagram.js");
const JS_SHEETS: &str = include_str!("../../../templates/report/js/sheets.js");
const JS_END: &str = include_str!("../../../templates/report/js/end.js");

const GENERATOR: &str = concat!("railyard ", env!("CARGO_PKG_VERSION"));

/// Cables a printed sheet holds (A4 landscape at the sheet's font size).
const ROWS_PER_PAGE: usize = 30;

pub fn report_html(
    design: &Design,
    findings: &crate::diag::Diagnostics,
    names: &LinkNames,
    summary: &Summary,
    bom: Option<&Csv>,
    portmaps: &[(&str, Csv)],
) -> Result<Vec<u8>, String> {
    let f = &design.fabric;
    let dg = diagram::build(f);
    let sheets = data::Sheets::of(f, names).whole();
    let has_racks = sheets.has_racks;
    let scope = data::Scope::whole(f, &dg);
    let data_json = data::json(f, names, &scope, sheets, bom, portmaps)
        .map_err(|e| format!("the page's data does not serialize: {e}"))?;

    let rack_list = racks::racks(f);
    let racks_html = racks::render(&rack_list);
    let diagram_svg = diagram::svg::render(&dg);

    let ctx = context! {
        page => "full",
        pod_title => "",
        pods => Value::from(Vec::<Value>::new()),
        diagram_note => overview::diagram_note(dg.mode),
        diagram_svg => Value::from_safe_string(diagram_svg),
        has_racks => has_racks,
        rack_count => rack_list.len(),
        racks_html => Value::from_safe_string(racks_html),
        sheet_unit => if has_racks { "rack" } else { "switch" },
        js => Value::from_safe_string(
            [JS_CORE, JS_CABLING, JS_BOM, JS_DIAGRAM, JS_SHEETS, JS_END].concat()
        ),
        data_json => Value::from_safe_string(data_json),
        ..fabric(design, findings, summary)
    };
    render(ctx)
}

/// What the whole page and the index show of the whole fabric: its name, figures, design,
/// findings and tenants.
fn fabric(design: &Design, findings: &crate::diag::Diagnostics, summary: &Summary) -> Value {
    let f = &design.fabric;
    let cable_count = f.link_count() as u64;
    context! {
        cluster => &f.name,
        site => &f.site,
        generator => GENERATOR,
        summary => summary,
        switch_total => thousands(summary.switches.values().sum()),
        cable_total => thousands(cable_count),
        figures => overview::figures(summary, cable_count),
        switches => overview::counts(&summary.switches),
        cables => overview::counts(&summary.links),
        design => overview::design(summary),
        diagnostics => overview::diagnostics(findings),
        accepted_warnings => findings.allowed_count(),
        accepted_codes => findings.allowed_codes().iter().map(|c| c.id).collect::<Vec<_>>().join(", "),
        // Findings the build's command line accepted (`--allow`, `--baseline`): said, not listed.
        accepted_by_command => findings.accepted_count(),
        tenants => overview::tenants(&summary.tenants),
        failure_domains => domains::section(design),
        rows_per_page => ROWS_PER_PAGE,
        css => Value::from_safe_string(CSS.to_string()),
    }
}

/// The page from its template; a template error (an undefined value, say) is the page's
/// error, never an empty page.
fn render(ctx: Value) -> Result<Vec<u8>, String> {
    render_template("report.html", ctx)
}

/// `name` of the page's templates, every value HTML-escaped.
fn render_template(name: &str, ctx: Value) -> Result<Vec<u8>, String> {
    let mut env = Environment::new();
    env.set_auto_escape_callback(|_| AutoEscape::Html);
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.add_template("report.html", TEMPLATE)
        .and_then(|()| env.add_template("failure_domains.html", FAILURE_DOMAINS))
        .and_then(|()| env.get_template(name))
        .and_then(|t| t.render(ctx))
        .map(String::into_bytes)
        .map_err(|e| format!("the page template failed: {e}"))
}
