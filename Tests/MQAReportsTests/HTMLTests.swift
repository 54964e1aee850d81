import Foundation
import Testing
@testable import MQAReports

#if canImport(FoundationXML)
import FoundationXML
#endif
import MQABase
import MQAModel
import MQAAnalysis
import MQATestSupport

/// Parses a page as XML; returns the parser's error, if any.
func xmlError(_ page: String) -> String? {
    final class Delegate: NSObject, XMLParserDelegate {
        var error: String?
        var svgCount = 0
        func parser(_ parser: XMLParser, parseErrorOccurred e: Error) {
            error = "line \(parser.lineNumber), column \(parser.columnNumber): \(e)"
        }
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            if name == "svg" { svgCount += 1 }
            if name == "script" { error = "a <script> element" }
        }
    }
    let parser = XMLParser(data: Data(page.utf8))
    let delegate = Delegate()
    parser.delegate = delegate
    let ok = parser.parse()
    if let e = delegate.error { return e }
    return ok ? nil : "parse failed: \(String(describing: parser.parserError))"
}

@Suite struct HTMLTests {
    static var pages: [(String, String)] {
        let sfu = MeetingReport(log: Fixtures.sfu, config: TierConfig())
        let cdn = MeetingReport(log: Fixtures.cdn, config: TierConfig())
        let hostile = MeetingReport(log: Fixtures.hostile, config: TierConfig())
        return [
            ("meeting", sfu.html), ("cdn", cdn.html), ("hostile", hostile.html),
            ("track", try! TrackReport(meeting: sfu, track: "carol-cam").html),
            ("hostile track", try! TrackReport(meeting: hostile, track: "../../etc/passwd").html),
            ("fleet", FleetReport(entries: [FleetEntry(sfu), FleetEntry(cdn), FleetEntry(hostile)],
                                  files: [hostile.header.meeting: SafeFileName.make(for: hostile.header.meeting, extension: "html")]).html),
        ]
    }

    @Test func everyPageIsWellFormedXML() {
        for (name, page) in HTMLTests.pages { #expect(xmlError(page) == nil, "\(name): \(xmlError(page) ?? "")") }
    }

    @Test func pagesAreSelfContained() {
        for (name, page) in HTMLTests.pages {
            #expect(!page.contains("<script"), "\(name)")
            #expect(!page.contains("http://") || !page.contains("src=\"http"), "\(name)")
            #expect(!page.contains("src="), "\(name) loads something")
            #expect(!page.contains("@import") && !page.contains("url("), "\(name) fetches CSS resources")
            #expect(page.contains("<svg"), "\(name) has no chart")
        }
    }

    @Test func meetingPageHasEveryChart() {
        let page = MeetingReport(log: Fixtures.sfu, config: TierConfig()).html
        for uid in ["alice", "bob", "carol"] {
            #expect(page.contains("Quality over time of \(uid): MOS, tiers, loss, RTT, jitter and bitrate"))
        }
        for panel in [">loss %<", ">RTT ms<", ">jitter ms<", ">kbps<", ">tier<", ">SDK<"] { #expect(page.contains(panel), "\(panel)") }
        #expect(page.contains("Stall timeline per track"))
        #expect(page.contains("Connected time per tier, per participant"))
        // bob's abnormal disconnect, his time away and his reconnect are marked.
        #expect(page.contains("<title>disconnect (network: ice_timeout) at +0:30.000</title>"))
        #expect(page.contains("<title>away for 3 s</title>"))
        #expect(page.contains("<title>reconnect at +0:33.000</title>"))
        // Stall tooltips name the track, in the charts and in the timeline.
        #expect(page.contains("<title>stall of carol-cam (from carol) at +0:40.000 for 2.5 s, tier excellent at its start</title>"))
        #expect(page.contains("<title>alice ← carol-cam (carol): stall at +0:40.000 for 2.5 s, tier excellent at its start</title>"))
    }

    @Test("the verdict comes first: ranked participants and top incidents before any table or chart")
    func verdictFirst() throws {
        let page = MeetingReport(log: Fixtures.sfu, config: TierConfig()).html
        let verdict = try #require(page.range(of: "<section id=\"verdict\""))
        for later in ["<section id=\"incidents\"", "<section id=\"participants\"", "<svg", "<section id=\"issues\""] {
            let at = try #require(page.range(of: later), "\(later)")
            #expect(verdict.lowerBound < at.lowerBound, "\(later) before the verdict")
        }
        #expect(page.contains("<h3>Who suffered most</h3>") && page.contains("<h3>Top incidents</h3>"))
        // bob: 30 s for his abnormal disconnect, his stall and his poor stretch.
        #expect(page.contains("bob suffered most"))
        #expect(page.contains("<span class=\"cause cause-disconnect\">disconnect</span>"))
        // Long lists are collapsed, the first chart open.
        #expect(page.contains("<details id=\"\(AnchorID.charts("bob"))\" open=\"open\">"))
    }

    @Test("charts share their y scales and keep the loss threshold off the floor")
    func sharedScales() throws {
        let page = MeetingReport(log: Fixtures.sfu, config: TierConfig()).html
        // The loss panel's top label is the same in every participant's figure.
        let tops = page.components(separatedBy: ">loss %<").dropFirst().count
        #expect(tops == 3)
        let scales = ChartScales(Fixtures.sfu.clients.map { QualitySeries($0, config: TierConfig()) })
        let loss = try #require(scales.metrics.first { $0.name == "loss %" })
        // bob's 7.5 % loss: the scale tops at 10 (2 × the 5 % threshold), so the
        // threshold line sits halfway up, not a few pixels above zero.
        #expect(loss.top == 10 && !loss.clips)
        #expect(scales.metrics.first { $0.name == "RTT ms" }?.top == 1000)  // carol's 450 ms
    }

    @Test func logTextIsEscaped() {
        let page = MeetingReport(log: Fixtures.hostile, config: TierConfig()).html
        #expect(!page.contains("<script>alert(1)</script>"))
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!page.contains("<b>bold</b>"))
        #expect(page.contains("&quot;&#39;&amp; &lt;b&gt;bold&lt;/b&gt;"))
        #expect(!page.contains("\u{1}"))
        // C0 controls XML forbids show as md shows them: a\u0001 and a\u0002 stay two.
        #expect(HTMLEscaping.escape("a\u{0}b\u{FFFF}\u{1}") == "a\\u0000b\u{FFFD}\\u0001")
        #expect(HTMLEscaping.escape("<&>\"'") == "&lt;&amp;&gt;&quot;&#39;")
        // Bidi overrides and isolates show as md shows them; other U+2xxx stay.
        #expect(HTMLEscaping.escape("evil\u{202E}gpj.exe \u{2066}x\u{2069} — …") == "evil\\u202egpj.exe \\u2066x\\u2069 — …")
        // As md shows them: what shows nothing, C1 controls; ordinary U+00xx and U+2xxx stay.
        #expect(HTMLEscaping.escape("\u{200B}\u{200B}·\u{FEFF}\u{85}©é") == "\\u200b\\u200b·\\ufeff\\u0085©é")
        // Right-to-left and Mongolian marks stay: the page lays them out as meant.
        let written = "צוות \u{200F}Q3\u{200F} مراجعة \u{061C}1 ᠬᠠᠮᠠᠭ\u{180E}ᠠ هم\u{200C}اندیشی"
        #expect(HTMLEscaping.escape(written) == written)
        #expect(HTMLPage.link("#x", "R&amp;D") == "<a href=\"#x\">R&amp;D</a>")
    }

    @Test func longMeetingsAreBucketed() {
        var c = ClientBuilder("long")
        c.join(Fixtures.t0)
        c.reports(from: Fixtures.t0 + 5000, to: Fixtures.t0 + 7_200_000, step: 1000, mos: 4.2)
        c.report(Fixtures.t0 + 3_600_000, mos: 1.5)
        let r = MeetingReport(log: meeting([c], id: "long"), config: TierConfig())
        let page = r.html
        #expect(xmlError(page) == nil)
        #expect(page.utf8.count < 200_000)
        // The one-report dip survives bucketing (worst value kept): y of MOS 1.5.
        #expect(page.contains(" 110.3 "), "the dip to 1.5 must be drawn")
    }
}
