import Foundation
import Testing
@testable import MQACLI

/// The typed option declarations: one declaration gives the parser its
/// conversion and checks, the help its text, and the command a typed value.
@Suite struct TypedOptionsTests {
    enum Tier3: Equatable { case low, mid, high }

    static let meeting = Option<String>.string("--meeting", value: "ID", help: "The meeting.", required: true)
    static let top = Option<Int>.integer("-n", "--top", value: "N", help: "Only the N first.", range: 1...10, default: 5)
    static let format = Option<String>.choice("-f", "--format", help: "The output format.", ["md", "json", "csv", "html"],
                                              default: "md", followsOut: true)
    static let out = Option<String>.path("-o", "--out", value: "FILE", help: "Write to FILE.")
    static let param = Option<[String]>.repeatable(
        "--param", value: "K=V", help: "Bind :K to V.", validate: { $0.contains("=") ? nil : "takes K=V" })
    static let all = Option<Bool>.flag("--all", help: "Everything.")
    static let level = Option<Tier3>.choice("--level", value: "LEVEL", help: "How much.",
                                            [("low", .low), ("mid", .mid), ("high", .high)], default: .mid, defaultText: "mid")

    let spec = CommandSpec(name: "demo-cmd", abstract: "A command for the tests.", maxPositionals: 1,
                           options: [meeting, top, format, out, param, all, level])

    /// The usage error `args` give, or nil when they parse.
    func error(_ args: [String]) -> String? {
        do {
            _ = try spec.parse(args)
            return nil
        } catch let e as UsageError {
            return e.message
        } catch {
            return "\(error)"
        }
    }

    @Test func aMissingRequiredOptionIsNamed() {
        #expect(error([]) == "missing '--meeting <id>'")
        #expect(error(["--top", "3"]) == "missing '--meeting <id>'")
        #expect(error(["--meeting", "m-1"]) == nil)
    }

    @Test func typedValuesDefaultsAndGiven() throws {
        let plain = try spec.parse(["--meeting", "m-1"])
        #expect(try plain.get(Self.meeting) == "m-1")
        #expect(try plain.get(Self.top) == 5)
        #expect(try plain.get(Self.format) == "md")
        #expect(try plain.get(Self.all) == false)
        #expect(try plain.get(Self.param) == [])
        #expect(try plain.get(Self.level) == .mid)
        #expect(plain.value(Self.out) == nil)
        #expect(!plain.isGiven(Self.top))
        #expect(throws: UsageError.self) { try plain.get(Self.out) }

        let given = try spec.parse(["--meeting", "m-1", "--top", "7", "--all", "--level", "HIGH", "id"])
        #expect(try given.get(Self.top) == 7)
        #expect(try given.get(Self.all))
        #expect(try given.get(Self.level) == .high)
        #expect(given.isGiven(Self.top))
        #expect(given.positionals == ["id"])
    }

    @Test func badIntegersAndRangesNameTheOptionAndTheRange() {
        #expect(error(["--meeting", "m", "--top", "zero"]) == "'--top' must be a whole number in 1...10, got 'zero'")
        #expect(error(["--meeting", "m", "--top", "11"]) == "'--top' must be a whole number in 1...10, got '11'")
        #expect(error(["--meeting", "m", "-n", "0"]) == "'--top' must be a whole number in 1...10, got '0'")
        let unbounded = CommandSpec(name: "x", abstract: "x", options: [
            Option<Int>.integer("--lead", value: "N", help: "h", range: 1...Int.max),
        ])
        #expect(throws: UsageError.self) { try unbounded.parse(["--lead", "-3"]) }
        do {
            _ = try unbounded.parse(["--lead", "0"])
            Issue.record("0 is below the range")
        } catch let e as UsageError {
            #expect(e.message == "'--lead' must be a whole number ≥ 1, got '0'")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func aBadChoiceListsTheAllowedOnes() throws {
        #expect(error(["--meeting", "m", "--format", "xml"]) == "'--format' must be one of md, json, csv, html, got 'xml'")
        #expect(error(["--meeting", "m", "--level", "max"]) == "'--level' must be one of low, mid, high, got 'max'")
        // Any letter case; the value is the declared word.
        #expect(try spec.parse(["--meeting", "m", "-f", "JSON"]).get(Self.format) == "json")
    }

    @Test func theFormatFollowsTheOutExtensionUnlessGiven() throws {
        let inferred = try spec.parse(["--meeting", "m", "-o", "r.HTM"])
        #expect(try inferred.get(Self.format) == "html")
        #expect(!inferred.isGiven(Self.format))
        #expect(try spec.parse(["--meeting", "m", "-o", "r.html", "-f", "csv"]).get(Self.format) == "csv")
        #expect(try spec.parse(["--meeting", "m", "-o", "r.xlsx"]).get(Self.format) == "md")
    }

    @Test func repeatableOptionsKeepEveryValueInOrder() throws {
        let parsed = try spec.parse(["--meeting", "m", "--param", "a=1", "--param=b=2", "--param", "c="])
        #expect(try parsed.get(Self.param) == ["a=1", "b=2", "c="])
        #expect(error(["--meeting", "m", "--param", "nokey"]) == "'--param' takes K=V, got 'nokey'")
        #expect(error(["--meeting", "m", "--top", "1", "--top", "2"]) == "'--top' given more than once")
    }

    @Test func shortOptionsTakeAttachedValues() throws {
        let parsed = try spec.parse(["--meeting", "m", "-n2", "-fjson", "-oout.csv"])
        #expect(try parsed.get(Self.top) == 2)
        #expect(try parsed.get(Self.format) == "json")
        #expect(try parsed.get(Self.out) == "out.csv")
        #expect(error(["--meeting", "m", "-n0"]) == "'--top' must be a whole number in 1...10, got '0'")
        // Only a short option that takes a value has one attached.
        #expect(error(["--meeting", "m", "-hx"])?.hasPrefix("unknown option '-hx'") == true)
    }

    @Test func longOptionsTakeEqualsValues() throws {
        let parsed = try spec.parse(["--meeting=m-1", "--top=3", "--format=csv"])
        #expect(try parsed.get(Self.meeting) == "m-1")
        #expect(try parsed.get(Self.top) == 3)
        #expect(try parsed.get(Self.format) == "csv")
        #expect(error(["--meeting", "m", "--all=yes"]) == "'--all' takes no value")
        #expect(error(["--meeting", "m", "--out="]) == "'--out' must be a path, got ''")
    }

    @Test func unknownOptionsGetASuggestion() throws {
        #expect(error(["--meeting", "m", "--fromat", "csv"]) == "unknown option '--fromat'; did you mean '--format'?")
        #expect(error(["--meeting", "m", "--zzzzzzzz"]) == "unknown option '--zzzzzzzz'")
        #expect(error(["--meeting"]) == "missing value for '--meeting <id>'")
        // Another option where the value should be: the value was left out
        // (`--db -f json` made a store named `-f`). Attached, it is a value.
        #expect(error(["--meeting", "--top", "3"]) == "missing value for '--meeting <id>'")
        #expect(error(["--meeting", "--format=csv"]) == "missing value for '--meeting <id>'")
        #expect(try spec.parse(["--meeting=--top"]).value(Self.meeting) == "--top")
        #expect(try spec.parse(["--meeting", "-5"]).value(Self.meeting) == "-5")
        // Only an option's whole name: `-nightly` is a value, though `-n…` could start one.
        #expect(try spec.parse(["--meeting", "-ftop"]).value(Self.meeting) == "-ftop")
    }

    @Test func helpWinsOverEveryOtherMistake() throws {
        #expect(try spec.parse(["--top", "zero", "--help"]).wantsHelp)
        #expect(try spec.parse(["-h"]).wantsHelp)
        // After `--`, `-h` is a positional, and the required option is missing.
        #expect(error(["--", "-h"]) == "missing '--meeting <id>'")
    }

    @Test func helpShowsRequiredChoicesAndDefaults() {
        let help = spec.helpText
        #expect(spec.usage == "mqa demo-cmd --meeting <id> [--top <n>] [--format <format>] [--out <file>] [--param <k=v> ...] [--all] [--level <level>]")
        #expect(help.contains("  --meeting <id>          The meeting. (required)\n"), "\(help)")
        #expect(help.contains("  -n, --top <n>           Only the N first. (default: 5)\n"), "\(help)")
        #expect(help.contains("  -f, --format <format>   The output format. (values: md, json, csv, html;\n                          default: md)\n"), "\(help)")
        #expect(help.contains("  --param <k=v>           Bind :K to V. (repeatable)\n"), "\(help)")
        #expect(help.contains("  --all                   Everything.\n"), "\(help)")
        #expect(help.contains("  -h, --help              Show help information.\n"), "\(help)")
    }

    /// Every command's help teaches with examples, and each example is a
    /// command line its own parser takes: an option renamed or removed
    /// fails here, not in a reader's terminal.
    @Test func everyExampleParses() throws {
        for command in CLI.subcommands {
            let spec = command.spec
            #expect(!spec.examples.isEmpty, "\(spec.name) has no example")
            #expect(spec.helpText.contains("\nEXAMPLES:\n  # "), "\(spec.name)")
            for (_, line) in spec.examples {
                let words = line.split(separator: " ").map(String.init)
                let head = ["mqa"] + spec.name.split(separator: " ").map(String.init)
                #expect(Array(words.prefix(head.count)) == head, "\(line)")
                let parsed = try spec.parse(Array(words.dropFirst(head.count)))
                #expect(!parsed.wantsHelp, "\(line)")
            }
        }
    }

    /// Every command's help and parser come from its declarations: each
    /// option name is declared once per command, and required ones are marked.
    @Test func everyCommandDeclaresEachNameOnce() {
        for command in CLI.subcommands {
            let names = command.spec.allOptions.flatMap(\.names)
            #expect(Set(names).count == names.count, "\(command.spec.name): \(names)")
            for option in command.spec.allOptions where option.isRequired {
                // "(required)", or "(required; values: …)" for a choice.
                #expect(command.spec.helpText.contains("(required"), "\(command.spec.name)")
                #expect(!command.spec.usage.contains("[\(option.synopsis)]"), "\(command.spec.name)")
            }
        }
    }
}

/// The papercuts of the command line, as a user meets them in the binary.
@Suite struct CLIPapercutTests {
    let dir = Scratch()
    var db: String { dir.file("store.sqlite") }

    func twoMeetings() {
        let f = dir.write("log.ndjson", Lines.meeting("m-one") + Lines.meeting("m-two", start: Lines.t0 + 86_400_000))
        #expect(MQA.run(["ingest", "--db", db, f]).status == 0)
    }

    @Test func attachedShortValuesAreAccepted() throws {
        twoMeetings()
        let r = MQA.run(["meetings", "--db", db, "-n1", "-fjson"])
        #expect(r.status == 0, "\(r)")
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let rows = object?["list"] as? [Any]
        #expect(rows?.count == 1, "\(r)")
        let fleet = MQA.run(["report", "fleet", "--db", db, "-fcsv", "-n2"])
        #expect(fleet.status == 0 && fleet.stdout.hasPrefix("rank,"), "\(fleet)")
    }

    @Test func requiredOptionsAreEnforcedAndShown() {
        twoMeetings()
        let r = MQA.run(["tiers", "--db", db])
        #expect(r.status == 64, "\(r)")
        #expect(r.stderr.hasPrefix("Error: missing '--meeting <id>'\nUsage: mqa tiers [--db <path>] --meeting <id> "), "\(r)")
        let help = MQA.run(["help", "report", "track"])
        #expect(help.stdout.contains("--meeting <id>          The meeting. (required)"), "\(help)")
        #expect(help.stdout.contains("(values: md, json, csv, html; default: md)"), "\(help)")
        let bad = MQA.run(["tune", "--db", db, "--grid", "g.json", "--target", "excellent"])
        #expect(bad.status == 64, "\(bad)")
        #expect(bad.stderr.hasPrefix("Error: '--target' must be one of good, fair, poor, bad, got 'excellent'"), "\(bad)")
    }

    @Test func outDashIsStandardOutput() {
        twoMeetings()
        let r = MQA.shell(#"cd "$D" && "$MQA" report fleet --db store.sqlite -o - -f json && "$MQA" export --db store.sqlite --out=-"#,
                          environment: ["D": dir.path])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.hasPrefix("{") && r.stdout.contains("m-one"), "\(r)")
        #expect(r.stdout.contains("\"event\":\"meeting_join\""), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("-")), "-o - wrote a file named '-'")
        let batch = MQA.run(["report", "meeting", "--all", "-o", "-", "--db", db])
        #expect(batch.status == 64 && batch.stderr.contains("--all needs --out DIR"), "\(batch)")
    }

    @Test func bareMqaIsAUsageErrorWithTheOverviewOnStderr() {
        let r = MQA.run([])
        #expect(r.status == 64, "\(r)")
        #expect(r.stderr.hasPrefix("Error: missing subcommand\n"), "\(r)")
        #expect(r.stderr.contains("SUBCOMMANDS:") && r.stderr.contains("report fleet"), "\(r)")
        #expect(r.stdout.isEmpty, "\(r)")
        let report = MQA.run(["report"])
        #expect(report.status == 64, "\(report)")
        #expect(report.stderr.hasPrefix("Error: missing subcommand"), "\(report)")
    }

    @Test func aMistypedKindSuggestsTheKindOfTheGroup() {
        for args in [["report", "fleat"], ["help", "report", "fleat"]] {
            let r = MQA.run(args)
            #expect(r.status == 64, "\(r)")
            #expect(r.stderr.contains("unknown subcommand 'report fleat'; did you mean 'report fleet'?"), "\(r)")
        }
        let none = MQA.run(["report", "xyz"])
        #expect(none.stderr.contains("'report' takes meeting, track, fleet"), "\(none)")
    }

    @Test func aMissingMeetingPointsAtMqaMeetings() {
        twoMeetings()
        let r = MQA.run(["report", "meeting", "m-none", "--db", db])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("(`mqa meetings` lists them)") && !r.stderr.contains("query meetings"), "\(r)")
    }
}
