#if CLI
import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLint

extension ReportFormat: ExpressibleByArgument {}

extension OAuthFlowCommand {
    struct Lint: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lint",
            abstract: "Check provider descriptors for mistakes and unsafe settings.",
            discussion:
                "Without paths, lints ./providers and the user directory ($XDG_CONFIG_HOME/oauthflow/providers). Exits 1 when there are errors, or warnings under --strict."
        )

        @Argument(help: "Descriptor files or directories to lint.")
        var paths: [String] = []

        @Option(help: "Output format: text, json or github.")
        var format: ReportFormat = .text

        @Flag(help: "Treat warnings as errors.")
        var strict = false

        @Flag(help: "Also fetch each descriptor's discovery document and compare it with the descriptor.")
        var online = false

        @Option(name: .customLong("var"), help: "With --online: a variable value as name=value, for descriptors that need one.")
        var variables: [String] = []

        func validate() throws {
            try VariableOptions.validate(variables)
        }

        func run() async throws {
            try await LintRun(paths: paths, format: format, strict: strict, online: online, variables: variables).run()
        }
    }
}
#endif
