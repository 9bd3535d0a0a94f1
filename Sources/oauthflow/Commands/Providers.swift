import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand {
    struct Providers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "providers",
            abstract: "List and inspect the providers in the registry.",
            subcommands: [List.self, Show.self])
    }
}

/// Parses repeated `--var name=value` options.
struct VariableOptions: ParsableArguments {
    @Option(name: .customLong("var"), help: "A provider variable as name=value; repeat for each.")
    var variables: [String] = []

    func parsed() throws -> [String: String] {
        try Self.parse(variables)
    }

    /// Parses `name=value` pairs, refusing malformed and repeated names.
    static func parse(_ pairs: [String]) throws -> [String: String] {
        var values: [String: String] = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw ValidationError("--var takes name=value, got `\(pair)`")
            }
            let name = String(pair[..<equals])
            if values[name] != nil { throw ValidationError("--var \(name) is given twice") }
            values[name] = String(pair[pair.index(after: equals)...])
        }
        return values
    }

    func validate() throws {
        _ = try parsed()
    }
}
