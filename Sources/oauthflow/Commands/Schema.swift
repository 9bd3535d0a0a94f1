#if CLI
import ArgumentParser
import OAuthFlowLint

extension OAuthFlowCommand {
    struct Schema: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "schema",
            abstract: "Print the JSON Schema of provider descriptors.")

        func run() async throws {
            Output.stdout(Linter.descriptorJSONSchema)
        }
    }
}
#endif
