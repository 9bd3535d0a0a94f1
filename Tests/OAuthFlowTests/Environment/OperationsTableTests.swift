import Foundation
import OAuthFlowTestSupport
import Testing

import OAuthFlow

/// Docs/operations.md's metrics table against the code: every metric `Instruments` reports is a row, with its type
/// and labels, and every row is a metric it reports.
@Suite struct OperationsTableTests {
    /// The rows of the table whose header starts `| Name | Type | Labels |`: name, type and labels.
    static func rows() throws -> [(name: String, type: String, labels: [String])] {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/operations.md"), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let header = try #require(lines.firstIndex { $0.hasPrefix("| Name | Type | Labels |") })
        return lines[(header + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
            func quoted(_ cell: String) -> [String] { cell.matches(of: #/`([^`]+)`/#).map { String($0.output.1) } }
            return (quoted(cells[0]).first ?? cells[0], cells[1], quoted(cells[2]))
        }
    }

    @Test func everyMetricIsARowAndEveryRowAMetric() throws {
        let rows = try Self.rows()
        let documented = Set(rows.map(\.name))
        let reported = Set(Instruments.Metric.allCases.map(\.rawValue))
        #expect(documented == reported, "in the code only: \(reported.subtracting(documented).sorted()); in the table only: \(documented.subtracting(reported).sorted())")
        #expect(rows.count == documented.count, "a metric listed twice")
        for row in rows {
            guard let metric = Instruments.Metric(rawValue: row.name) else { continue }
            #expect(row.type == metric.kind.rawValue, "\(row.name) is a \(metric.kind.rawValue), not a \(row.type)")
            #expect(row.labels == metric.labels, "\(row.name)'s labels are \(metric.labels)")
        }
    }

    @Test func everyEndpointIsNamed() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/operations.md"), encoding: .utf8)
        for endpoint in Instruments.Endpoint.allCases {
            #expect(text.contains("`\(endpoint.rawValue)`"), "Docs/operations.md does not name the endpoint \(endpoint.rawValue)")
        }
    }
}

/// The leak scan the operations tests run can fail: a planted secret and a query string are found.
@Suite struct ObservedScanTests {
    @Test func theScanFindsAPlantedSecretAndAQuery() {
        let secret = Observed()
        Instruments(metrics: secret.metrics, tracer: secret.tracer).count(.refreshes, "provider-with-planted-secret-1234", "failed", "none")
        withKnownIssue { secret.expectNothingLeaks(["planted-secret-1234"]) } matching: { $0.description.contains("carries a secret") }
        let query = Observed()
        Instruments(metrics: query.metrics, tracer: query.tracer).count(.refreshes, "simulated", "failed", "a?b")
        withKnownIssue { query.expectNothingLeaks(["never-there"]) } matching: { $0.description.contains("query string") }
    }
}
