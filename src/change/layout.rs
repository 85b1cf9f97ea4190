//! The one layout of a change set's text and page: sections of rows, each row marked with what
//! it means for the running cluster (`text.rs` writes it for the terminal, `page.rs` as HTML,
//! `markdown.rs` as a pull-request comment).

/// What a row says about the running cluster, for the page's colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Plain,
    Add,
    Remove,
    Disruptive,
}

impl Mark {
    pub fn class(self) -> &'static str {
        match self {
            Mark::Plain => "plain",
            Mark::Add => "add",
            Mark::Remove => "remove",
            Mark::Disruptive => "disruptive",
        }
    }
}

pub struct Row {
    pub mark: Mark,
    pub cells: Vec<String>,
    /// The heading the page groups the row under (the work order's phase and rack); empty
    /// where a section is not grouped.
    pub group: String,
}

pub struct Section {
    pub title: String,
    pub rows: Vec<Row>,
    /// Whether the page gives each row a box to tick off (the work order's steps).
    pub checkoff: bool,
}

impl Section {
    pub(crate) fn new(title: String, rows: Vec<Row>) -> Self {
        Section {
            title,
            rows,
            checkoff: false,
        }
    }
}

pub(crate) fn row(mark: Mark, cells: &[&str]) -> Row {
    Row {
        mark,
        cells: cells.iter().map(|c| c.to_string()).collect(),
        group: String::new(),
    }
}
