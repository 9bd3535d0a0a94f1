import Foundation
import OAuthFlow

extension Linter {
    /// A descriptor checked online with values it was not given: its variables' defaults or examples.
    public struct OnlineValues: Sendable, Hashable {
        /// The descriptor file.
        public let path: String
        /// `name=value (its default)` or `name=value (its example)`, by variable name.
        public let values: [String]
    }

    /// Lints `paths` as ``lint(paths:)`` does, then compares each descriptor that asks for discovery with the
    /// metadata its server publishes (`oauthflow lint --online`, the `online_*` rules).
    ///
    /// - Parameters:
    ///   - paths: Files, or directories whose `.yaml`/`.yml` files are linted.
    ///   - variables: Values for the descriptors' variables; defaults, then examples, fill the rest.
    ///   - transport: What fetches the metadata; each request within 10 s by default.
    ///   - filled: Told of each file checked with values it was not given, before it is checked, so that an example
    ///     domain is not taken for the caller's own.
    /// - Returns: The diagnostics in report order, and how many files were checked.
    /// - Throws: When a directory cannot be listed (a path that is not there is a finding at that path).
    public func lintOnline(
        paths: [URL], variables: [String: String] = [:], transport: any HTTPTransport = DefaultHTTPTransport(timeout: 10),
        filled: (OnlineValues) -> Void = { _ in }
    ) async throws -> (diagnostics: [Diagnostic], files: Int) {
        let files = try Linter.files(in: paths).map { LintFile(document: DescriptorDocument.load(contentsOf: $0)) }
        var diagnostics = lint(files)
        let checker = OnlineChecker(transport: transport)
        for file in files {
            if let values = Self.filledValues(file, given: variables) { filled(values) }
            diagnostics += await checker.check(file, variables: variables)
        }
        return (Linter.sorted(diagnostics), files.count)
    }

    /// The values ``OnlineChecker`` fills in for `file` beyond `given`; nil when it fills none.
    private static func filledValues(_ file: LintFile, given: [String: String]) -> OnlineValues? {
        guard let descriptor = file.descriptor, descriptor.asksForDiscovery else { return nil }
        let used = descriptor.variables.sorted { $0.key < $1.key }.compactMap { name, variable -> String? in
            guard given[name] == nil else { return nil }
            if let value = variable.default { return "\(name)=\(value) (its default)" }
            if let value = variable.example { return "\(name)=\(value) (its example)" }
            return nil
        }
        return used.isEmpty ? nil : OnlineValues(path: file.document.path, values: used)
    }
}
