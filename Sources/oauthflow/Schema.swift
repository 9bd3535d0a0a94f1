import ArgumentParser
import OAuthFlow

extension OAuthFlowCommand {
    struct Schema: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the JSON Schema of provider descriptors.")

        func run() async throws {
            Output.stdout(DescriptorSchema.jsonSchema())
        }
    }
}
