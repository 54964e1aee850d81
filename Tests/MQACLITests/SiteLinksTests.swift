import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The demo's report site: every link of every page resolves to a file of
/// the site and, when it names one, to an anchor in that file; the pages
/// link the way a reader walks (fleet → meeting → track → back).
@Suite struct SiteLinksTests {
    /// The ids and hrefs of one page (the pages are XHTML-compatible).
    final class Page: NSObject, XMLParserDelegate {
        var ids: Set<String> = []
        var hrefs: [String] = []
        var error: String?
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            if let id = attributes["id"] { ids.insert(id) }
            if let href = attributes["href"] { hrefs.append(href) }
            if attributes["src"] != nil || name == "script" || name == "link" { error = "\(name) loads something" }
        }
        func parser(_ parser: XMLParser, parseErrorOccurred e: Error) { error = "line \(parser.lineNumber): \(e)" }
    }

    static func parse(_ path: String) throws -> Page {
        let page = Page()
        let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: path)))
        parser.delegate = page
        _ = parser.parse()
        return page
    }

    /// `folder/href` with `..` applied; a result starting with `..` left the site.
    static func join(_ folder: String, _ href: String) -> String {
        var out: [String] = folder.split(separator: "/").map(String.init)
        for part in href.split(separator: "/").map(String.init) {
            if part == ".." { if out.isEmpty || out.last == ".." { out.append("..") } else { out.removeLast() } }
            else if part != "." { out.append(part) }
        }
        return out.joined(separator: "/")
    }

    @Test func everyLinkOfTheDemoSiteResolves() throws {
        let dir = Scratch()
        let demo = MQA.run(["demo", "--meetings", "4", "--seed", "3", "--out", dir.path], timeout: 600)
        #expect(demo.status == 0, "\(demo)")
        let site = dir.file("site")
        let fm = FileManager.default
        let tracks = try fm.contentsOfDirectory(atPath: site + "/tracks").map { "tracks/" + $0 }
        // Beside the index: the participant page and the fleet-wide cohort and trend pages.
        let fleetPages = ["cohorts.html", "trends.html"]
        let meetings = try fm.contentsOfDirectory(atPath: site).filter {
            $0.hasSuffix(".html") && $0 != "index.html" && $0 != "participants.html" && !fleetPages.contains($0)
        }
        #expect(meetings.count == 4)
        #expect(!tracks.isEmpty)
        var pages: [String: Page] = [:]
        for file in ["index.html", "participants.html"] + fleetPages + meetings + tracks {
            let page = try Self.parse(site + "/" + file)
            #expect(page.error == nil, "\(file): \(page.error ?? "")")
            pages[file] = page
        }
        var checked = 0
        for (file, page) in pages {
            let folder = (file as NSString).deletingLastPathComponent
            for href in page.hrefs {
                #expect(!href.contains("://"), "\(file) links outside the site: \(href)")
                let parts = href.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let target = parts[0].isEmpty ? file : Self.join(folder, parts[0])
                #expect(!target.hasPrefix(".."), "\(file): \(href) leaves the site")
                guard let linked = pages[target] else {
                    Issue.record("\(file): \(href) → no such page \(target)")
                    continue
                }
                if parts.count == 2 { #expect(linked.ids.contains(parts[1]), "\(file): \(href) → no anchor \(parts[1])") }
                checked += 1
            }
        }
        #expect(checked > 100)
        // The walk a reader takes: the fleet links every meeting, each meeting
        // links back and links its tracks, each track page links both back.
        let index = try #require(pages["index.html"])
        #expect(Set(index.hrefs) == Set(meetings + ["participants.html"] + fleetPages))
        for f in fleetPages { #expect(try #require(pages[f]).hrefs.contains("index.html")) }
        // The participant page links back, and each meeting at the person.
        let people = try #require(pages["participants.html"])
        #expect(people.hrefs.contains("index.html"))
        #expect(Set(people.hrefs.compactMap { $0.split(separator: "#").first.map(String.init) }.filter { $0 != "index.html" }) == Set(meetings))
        #expect(people.hrefs.allSatisfy { $0 == "index.html" || $0.contains("#q-") || $0.contains("#p-") })
        for m in meetings {
            let hrefs = try #require(pages[m]).hrefs
            #expect(hrefs.contains("index.html"))
            #expect(hrefs.contains { $0.hasPrefix("tracks/") })
        }
        for t in tracks {
            let hrefs = try #require(pages[t]).hrefs
            #expect(hrefs.contains("../index.html"))
            #expect(hrefs.contains { $0.hasPrefix("../m-") && $0.contains(".html#t-") })
        }
        // Every participant, track and incident of a meeting page has an anchor.
        for m in meetings {
            let ids = try #require(pages[m]).ids
            #expect(ids.contains("verdict") && ids.contains("incidents"))
            #expect(ids.contains { $0.hasPrefix("p-") } && ids.contains { $0.hasPrefix("t-") })
        }
        #expect(meetings.contains { pages[$0]!.ids.contains("i-1") })
    }
}
