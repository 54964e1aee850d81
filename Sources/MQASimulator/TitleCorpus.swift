import MQABase
import MQAModel
import MQAAnalysis

/// Meeting titles as people type them: Unicode, emoji, HTML-special
/// characters, quotes, backslashes and the odd control character.
enum TitleCorpus {
    static let titles: [String] = [
        "Weekly sync",
        "Daily stand-up",
        "Q4 planning <draft> & review",
        "R&D \"deep dive\": codecs",
        "Café ☕ catch-up",
        "Müller / Søren 1:1",
        "週次定例ミーティング",
        "Équipe produit — revue",
        "🚀 Launch go/no-go",
        "Interview: <script>alert('x')</script>",
        "Retro 👩‍💻🧑🏽‍🚀 sprint 42",
        "Backlog grooming (C:\\work\\board)",
        "Customer call — ACME & Co. <external>",
        "Ревью архитектуры",
        "تخطيط الفريق",
        "Tab\tseparated\ttitle",
        "Line one\nline two",
        "All-hands Ω ≈ ∑ 100%",
        "Design crit 'v2' > v1?",
        "Onboarding 新人 & mentors",
        "Zoomers' \"quick\" chat",
        "Incident review #1234 \u{0007}",
        "Board prep ¾ done",
        "Ελληνικά και English",
    ]
}
