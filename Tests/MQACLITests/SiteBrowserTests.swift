import Foundation
import Testing

/// A report site in a real browser: `Scripts/site-check.sh` loads
/// every page in headless Chromium at 1400 × 900 and 400 × 900 and
/// measures the rendered page (not the HTML text); this test asserts on
/// those measures. Without Chromium (and no way to install it) the script
/// exits 77 and the test prints why and passes as skipped, unless
/// `MQA_SITE_CHECK_REQUIRED=1` (CI) makes that a failure.
@Suite struct SiteBrowserTests {
    /// What the script measured on one page at one size.
    struct Load: Decodable {
        struct Box: Decodable {
            var top: Int
            var bottom: Int
            var text: String
        }
        var page: String
        var kind: String
        var width: Int
        var height: Int
        var error: String?
        var textLength: Int?
        var viewportWidth: Int?
        var viewportHeight: Int?
        var scrollWidth: Int?
        var overflowCount: Int?
        var overflowing: [String]?
        var verdict: Box?
        var topIncidentCause: Box?
        var trackVerdict: Box?
        var consoleErrors: [String]
    }

    struct Result: Decodable {
        var chromium: String
        var pages: [Load]
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test func theDemoSiteRendersInABrowser() throws {
        // The demo's site without the rest of the demo (tuning, cohorts
        // reports): 4 simulated meetings, 36 pages, about 3 s to build.
        let dir = Scratch()
        let log = dir.simulated("sim.ndjson", meetings: 4, seed: 3)
        let db = dir.file("s.sqlite")
        let ingest = MQA.run(["ingest", "--db", db, log], timeout: 600)
        try #require(ingest.status == 0, "\(ingest)")
        let site = MQA.run(["report", "meeting", "--all", "--db", db, "--format", "html", "--out", dir.file("site")], timeout: 600)
        try #require(site.status == 0, "\(site)")
        let out = dir.file("site-check.json")
        let check = MQA.shell("bash \"$SCRIPT\" \"$SITE\" --out \"$OUT\"", environment: [
            "SCRIPT": Self.root + "/Scripts/site-check.sh", "SITE": dir.file("site"), "OUT": out,
        ], timeout: 600)
        if check.status == 77 {
            let reason = check.stderr.split(separator: "\n").first { $0.contains("skipped") }.map(String.init) ?? check.stderr
            if ProcessInfo.processInfo.environment["MQA_SITE_CHECK_REQUIRED"] == "1" {
                Issue.record("the browser check is required here but was skipped: \(reason)")
            } else {
                print("SiteBrowserTests skipped: \(reason)")
            }
            return
        }
        // 1: the script found failures (asserted one by one below); 2: it broke.
        try #require(check.status == 0 || check.status == 1, "\(check)")
        let result = try JSONDecoder().decode(Result.self, from: Data(contentsOf: URL(fileURLWithPath: out)))
        print("SiteBrowserTests: \(result.pages.count) page loads in \(result.chromium), \(Int(check.seconds)) s")

        // Every page type, each at both sizes.
        let kinds = Set(result.pages.map(\.kind))
        #expect(kinds == ["fleet", "participants", "cohorts", "trends", "meeting", "track"], "\(kinds)")
        #expect(Set(result.pages.map { "\($0.width)x\($0.height)" }) == ["1400x900", "400x900"])
        #expect(result.pages.filter { $0.kind == "meeting" }.count == 2 * 4)

        for p in result.pages {
            let at = "\(p.page) at \(p.width)×\(p.height)"
            #expect(p.error == nil, "\(at): \(p.error ?? "")")
            #expect(p.consoleErrors.isEmpty, "\(at): \(p.consoleErrors)")
            guard let width = p.viewportWidth, let height = p.viewportHeight, let scroll = p.scrollWidth else { continue }
            #expect(width == p.width && height == p.height, "\(at): viewport \(width)×\(height)")
            #expect((p.textLength ?? 0) > 0, "\(at): nothing rendered")
            // Nothing sideways outside its scroll box: the page itself does not scroll sideways.
            #expect(scroll <= width, "\(at): \(scroll) px wide")
            #expect(p.overflowCount == 0, "\(at): \(p.overflowing ?? [])")
            switch p.kind {
            case "meeting":
                // The first screen answers: the verdict and the top incident's cause.
                let verdict = try #require(p.verdict, "\(at): no verdict")
                #expect(verdict.top >= 0 && verdict.bottom <= height, "\(at): verdict at \(verdict.top)–\(verdict.bottom)")
                let cause = try #require(p.topIncidentCause, "\(at): no top incident")
                #expect(cause.bottom <= height, "\(at): the top incident's cause (\(cause.text)) ends at \(cause.bottom) px")
            case "track":
                let verdict = try #require(p.trackVerdict, "\(at): no track verdict")
                #expect(verdict.bottom <= height, "\(at): the track verdict ends at \(verdict.bottom) px")
            default:
                break
            }
        }
    }
}
