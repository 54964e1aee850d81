import Foundation
import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// A cohort command asked about a value the store does not hold.
enum CohortError: Error, CustomStringConvertible {
    case noSuchValue(field: String, value: String, known: [String], hint: String)

    var description: String {
        switch self {
        case .noSuchValue(let field, let value, let known, let hint):
            let shown = known.prefix(20).map { "'\(TerminalText.escaped($0))'" }.joined(separator: ", ")
            return "no participant has \(field) '\(TerminalText.escaped(value))'\(hint) (values: \(known.isEmpty ? "none" : shown)\(known.count > 20 ? ", …" : ""))"
        }
    }
}
