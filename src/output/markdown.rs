//! The one escape for text railyard writes into Markdown (a pull-request comment, GitHub
//! Flavored Markdown): every ASCII punctuation character gets a backslash, which CommonMark
//! defines as that character literally ("Any ASCII punctuation character may be
//! backslash-escaped", spec 0.31 §2.4), so no value can open a link, emphasis, code, HTML or a
//! table cell (`|`); line breaks and other control characters become spaces, so a value stays
//! in its cell and line.

/// `s` as literal Markdown text on one line.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
            out.push(c);
        } else if c.is_control() {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::text;

    #[test]
    fn nothing_a_value_holds_is_markup() {
        assert_eq!(text("a|b"), "a\\|b");
        assert_eq!(text("[x](javascript:1)"), "\\[x\\]\\(javascript\\:1\\)");
        assert_eq!(text("<img src=x>"), "\\<img src\\=x\\>");
        assert_eq!(text("`code` **b**"), "\\`code\\` \\*\\*b\\*\\*");
        assert_eq!(text("line\nnext"), "line next");
        assert_eq!(text("leaf-su01-01"), "leaf\\-su01\\-01");
    }
}
