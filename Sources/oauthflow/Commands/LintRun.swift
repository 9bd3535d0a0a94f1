#if CLI
import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLint

/// What `oauthflow lint` does with its options, whether the argument parser read them or
/// ``OAuthFlowCommand/main()`` saw at once that they are only paths.
struct LintRun {
    var paths: [String]
    var format: ReportFormat = .text
    var strict = false
    var online = false
    var variables: [String] = []

    /// The paths of `oauthflow lint PATH…` when nothing else was given: no option (nothing that begins
    /// with `-`) and no word the argument parser could read another way (`help`). nil for anything else,
    /// which the argument parser reads; this never decides differently, only sooner, without the parser's
    /// first-use reflection (most of a short lint's start-up, see Docs/benchmarks.md).
    static func plainPaths(_ arguments: [String]) -> [String]? {
        guard arguments.first == "lint" else { return nil }
        let paths = Array(arguments.dropFirst())
        guard paths.allSatisfy({ !$0.hasPrefix("-") && $0 != "help" && !$0.isEmpty }) else { return nil }
        return paths
    }

    /// Lints the files in `targets`, handing their diagnostics to `emit` in report order.
    ///
    /// - Returns: How many files were checked.
    private func lint(_ targets: [URL], emit: ([Diagnostic]) -> Void) async throws -> Int {
        guard online else {
            // A batch of files at a time, on every core, written out as it is done: memory stays flat at any corpus size.
            return try Linter().lintStreaming(paths: targets, emit: emit)
        }
        // `--online` fills variables not given with `--var` from the descriptor's defaults, then its examples: say which
        // values it checked with, so an example domain is not mistaken for the user's own.
        let (diagnostics, files) = try await Linter().lintOnline(paths: targets, variables: VariableOptions.values(variables)) { filled in
            Output.stderr("\(filled.path): checked online with \(filled.values.joined(separator: ", ")); pass --var NAME=VALUE to check your own\n")
        }
        emit(diagnostics)
        return files
    }

    /// The paths given, else `./providers` and the user directory where they exist.
    private func lintTargets() throws -> [URL] {
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        guard paths.isEmpty else { return paths.map { URL(fileURLWithPath: $0, relativeTo: here) } }
        let local = URL(fileURLWithPath: "providers", isDirectory: true, relativeTo: here)
        let user = ProviderRegistry.userProvidersDirectory(environment: CommandEnvironment.variables)
        let found = [local, user].filter { FileManager.default.fileExists(atPath: $0.path) }
        if found.isEmpty { throw CommandFailure("no paths given, and neither ./providers nor \(user.path) exists") }
        return found
    }

    func run() async throws {
        let targets = try await Output.running { try lintTargets() }
        let reporter = format.reporter
        var errors = 0, warnings = 0, written = 0  // advice (info) never fails, not even under --strict
        var unread = Set<String>()  // files the other rules did not run on
        let checked = try await Output.running {
            try await lint(targets) { diagnostics in
                guard !diagnostics.isEmpty else { return }
                // Text diagnostics escape themselves; json and github stay exact. Written as the reporter's bytes,
                // which `stdoutExact` would have had from a string made of them (Docs/benchmarks.md).
                Output.stdoutData(Data(format.partBytes(diagnostics, following: written > 0)))
                written += diagnostics.count
                errors += diagnostics.count { $0.severity == .error }
                warnings += diagnostics.count { $0.severity == .warning }
                for diagnostic in diagnostics where diagnostic.isStructural { unread.insert(diagnostic.location.path) }
            }
        }
        Output.stdoutExact(reporter.end(afterAny: written > 0))
        if checked == 0 {
            // An empty folder or a wrong path must not pass silently as "clean".
            Output.stderr("no descriptor files (.yaml, .yml) in \(targets.map(\.relativePath).joined(separator: ", ")); nothing was checked\n")
            if strict { throw ExitCode.failure }
            return
        }
        if format == .text {
            Output.stderr(
                "\(checked) file\(checked == 1 ? "" : "s") checked: \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")\n"
            )
            if !unread.isEmpty {
                let files = unread.count == 1 ? "1 file" : "\(unread.count) files"
                Output.stderr(
                    "note: \(files) could not be read as a descriptor (the errors above): the rules that read one did not run on \(unread.count == 1 ? "it" : "them"), and may find more once \(unread.count == 1 ? "it is" : "they are") fixed\n"
                )
            }
        }
        if errors > 0 || (strict && warnings > 0) {
            throw ExitCode.failure
        }
    }
}
#endif
