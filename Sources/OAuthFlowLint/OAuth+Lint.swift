import Foundation
import OAuthFlow

extension OAuth {
    /// Checks the host's own descriptors (`OAuth.Configuration.providerDirectories`) with every lint rule, as
    /// `oauthflow lint` does.
    ///
    /// ```swift
    /// let problems = try oauth.lint().filter { $0.severity == .error }
    /// ```
    ///
    /// - Returns: Every diagnostic, sorted by file, line and column; none when the configuration names no directory.
    /// - Throws: When a directory does not exist or cannot be listed.
    public func lint() throws -> [Diagnostic] {
        guard !configuration.providerDirectories.isEmpty else { return [] }
        return try Linter().lint(paths: configuration.providerDirectories)
    }
}
