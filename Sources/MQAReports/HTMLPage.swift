import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// The frame every HTML report shares: one self-contained page (inline CSS,
/// inline SVG, no scripts, no fonts or images fetched), written as
/// XHTML-compatible markup (every tag closed, attributes quoted, only the
/// XML entities) so that an XML parser accepts it as well as a browser.
enum HTMLPage {
    /// A whole page; `title` is escaped here, `body` is markup already.
    static func document(title: String, body: String) -> String {
        documentHead(title: title) + body + documentTail
    }

    /// A page up to its body's markup (`document`, written in pieces).
    static func documentHead(title: String) -> String {
        """
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
        <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title>\(title.html)</title>
        <style>
        \(css)
        </style>
        </head>
        <body>

        """
    }

    /// What follows a page's body.
    static let documentTail = "\n</body>\n</html>\n"

    /// The tier colours: a diverging green→red scale (ColorBrewer RdYlGn),
    /// which stays distinct in greyscale print and for most colour-blind
    /// readers thanks to its lightness ramp; unknown is neutral grey.
    static func colour(_ tier: Tier) -> String {
        switch tier {
        case .excellent: "#1a9850"
        case .good: "#91cf60"
        case .fair: "#fee08b"
        case .poor: "#fc8d59"
        case .bad: "#d73027"
        case .unknown: "#d9d9d9"
        }
    }

    /// A collapsible block: `summary` is markup; open when `open`.
    static func details(_ summary: String, open: Bool = false, id: String? = nil, _ body: String) -> String {
        detailsOpening(summary, open: open, id: id) + body + detailsClosing
    }

    /// `details` up to its body, for a body written in pieces.
    static func detailsOpening(_ summary: String, open: Bool = false, id: String? = nil) -> String {
        "<details" + (id.map { " id=\"\($0)\"" } ?? "") + (open ? " open=\"open\"" : "") + ">\n<summary>\(summary)</summary>\n"
    }

    static let detailsClosing = "</details>\n"


    /// A link to `href` (a file name or fragment we made safe) around markup.
    /// A link around `markup`. One whose text is long (24 characters or
    /// more: a UUID, a hashed uid, a name with a department) is of class
    /// `long`, which a table cell ends in an ellipsis, and carries its whole
    /// text as the tooltip, so that nothing cut is lost.
    static func link(_ href: String, _ markup: String) -> String {
        let text = plainText(markup)
        let long = shownLength(text) >= 24 ? " class=\"long\" title=\"\(text)\"" : ""
        return "<a href=\"\(href.html)\"\(long)>\(markup)</a>"
    }

    /// An id (a meeting, a track) in a code span; one of 24 characters or
    /// more is of class `long`, which may wrap where a short one never
    /// breaks (at its hyphens).
    static func code(_ id: String) -> String {
        let text = id.html
        return shownLength(text) >= 24 ? "<span class=\"code long\">\(text)</span>" : "<span class=\"code\">\(text)</span>"
    }

    /// `text` in a span that never breaks (a date, `5.2.3 ×3`).
    static func nowrap(_ text: String) -> String { "<span class=\"nowrap\">\(text.html)</span>" }

    /// Characters `escaped` shows: an entity (`&amp;`) is one.
    static func shownLength(_ escaped: String) -> Int {
        var n = 0, inEntity = false
        for c in escaped {
            if inEntity { if c == ";" { inEntity = false }; continue }
            if c == "&" { inEntity = true }
            n += 1
        }
        return n
    }

    /// `markup` without its tags (its entities kept: still escaped text).
    static func plainText(_ markup: String) -> String {
        guard markup.contains("<") else { return markup }
        var out = "", inTag = false
        for c in markup {
            if c == "<" { inTag = true } else if c == ">" { inTag = false } else if !inTag { out.append(c) }
        }
        return out
    }

    /// A row of coloured keys for the tier colours.
    static var tierLegend: String {
        var out = "<p class=\"legend\">"
        for t in Tier.reportOrder {
            out += "<span class=\"key\"><span class=\"swatch\" style=\"background:\(colour(t))\"></span>\(t.name)</span> "
        }
        return out + "</p>\n"
    }

    // No `<` or `&` in here: the style element is parsed as XML too.
    static let css = """
        :root { --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg-alt: #f6f8fa; }
        * { -webkit-print-color-adjust: exact; print-color-adjust: exact; box-sizing: border-box; }
        body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
               color: var(--ink); margin: 0 auto; padding: 20px 32px; max-width: 1440px; overflow-wrap: anywhere; }
        h1 { font-size: 22px; margin: 0 0 4px; overflow-wrap: anywhere; }
        h2 { font-size: 17px; margin: 26px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
        h3 { font-size: 14px; margin: 16px 0 6px; }
        a { color: #0550ae; }
        a, .code { unicode-bidi: isolate; }
        nav.crumbs { font-size: 13px; margin: 0 0 8px; }
        nav.crumbs a { margin-right: 14px; }
        .sub { color: var(--muted); margin: 0 0 10px; overflow-wrap: anywhere; }
        dl.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 4px 18px; margin: 10px 0; }
        dl.facts div { border-left: 3px solid var(--line); padding-left: 8px; }
        dl.facts dt { color: var(--muted); font-size: 12px; }
        dl.facts dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
        .notice { border: 1px solid #d4a72c; background: #fff8c5; padding: 10px 14px; border-radius: 6px; font-weight: 600; }
        .verdict { border: 1px solid var(--line); border-radius: 8px; padding: 4px 18px 10px; margin: 14px 0; background: #fbfcfd; }
        .verdict h2 { border: 0; margin-top: 12px; }
        .verdict .lead { font-size: 15px; margin: 4px 0 8px; }
        .cols { display: grid; grid-template-columns: minmax(0, 1.2fr) minmax(0, 1fr); gap: 8px 28px; }
        .cols th, .cols th.n { white-space: normal; }
        .verdict td, .verdict th { padding: 3px 6px; }
        .verdict td { max-width: 240px; }
        ol.incidents { margin: 0; padding: 0; list-style: none; }
        ol.incidents li { margin: 0 0 8px; }
        ol.incidents .when { white-space: nowrap; }
        ol.incidents .chips { margin: 0; line-height: 1.7; }
        .cause { font-weight: 600; padding: 0 6px; border-radius: 4px; white-space: nowrap; }
        .cause-own_network { background: #fde0c5; }
        .cause-publisher { background: #e0d4f5; }
        .cause-disconnect { background: #d8d8d8; }
        .cause-unknown { background: #eef1f4; }
        .chips { margin: 4px 0; line-height: 1.9; }
        .chips .code { margin-right: 4px; }
        .scroll, .chart { overflow-x: auto; }
        table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
        th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
        th { background: var(--bg-alt); font-weight: 600; overflow-wrap: normal; }
        td { overflow-wrap: break-word; max-width: 420px; }
        td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
        td.n, .nowrap { white-space: nowrap; }
        td > a { white-space: nowrap; }
        td > a.long { display: inline-block; max-width: 100%; overflow: hidden; text-overflow: ellipsis; vertical-align: top; }
        tr.bad td { background: #fff1f0; }
        tr:target td { background: #fff8c5; }
        code, .code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
        .code { background: var(--bg-alt); padding: 1px 5px; border-radius: 4px; white-space: nowrap; }
        .sub .code, .code.long { white-space: normal; }
        td > a.long .code.long { white-space: nowrap; }
        .muted { color: var(--muted); }
        details { margin: 6px 0 10px; }
        summary { cursor: pointer; font-weight: 600; padding: 3px 0; }
        summary .muted { font-weight: 400; }
        figure { margin: 10px 0 18px; }
        figcaption { font-weight: 600; margin-bottom: 2px; overflow-wrap: anywhere; }
        svg { display: block; width: 100%; height: auto; }
        .chart svg { min-width: 800px; }
        svg text { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; fill: var(--ink); }
        svg text.small { font-size: 11px; fill: var(--muted); }
        .legend { font-size: 12px; color: var(--muted); margin: 4px 0; }
        .key { white-space: nowrap; margin-right: 10px; }
        .swatch { display: inline-block; width: 11px; height: 11px; border: 1px solid #0003; vertical-align: -1px; margin-right: 4px; }
        footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
        @media (max-width: 900px) {
          .cols { grid-template-columns: minmax(0, 1fr); }
        }
        @media (max-width: 600px) {
          body { padding: 12px; }
          h1 { font-size: 19px; }
          .verdict { padding: 2px 10px 8px; }
          td { max-width: 260px; }
          .scroll > table { width: max-content; }
        }
        @media print {
          body { padding: 0; max-width: none; font-size: 11px; }
          nav.crumbs { display: none; }
          h2, h3, summary, figcaption { break-after: avoid; }
          figure, .notice, .verdict, tr, .chart { break-inside: avoid; }
          a { color: inherit; text-decoration: none; }
          td > a.long, td > a.long .code, td > a.long .code.long { display: inline; white-space: normal; overflow: visible; }
          .scroll, .chart { overflow: visible; }
          .chart svg { min-width: 0; }
          details::details-content { content-visibility: visible; display: block; }
          summary { list-style: none; }
        }
        """
}
