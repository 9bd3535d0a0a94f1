#if CLI
import ArgumentParser

/// Parses repeated `--var name=value` options.
struct VariableOptions: ParsableArguments {
    @Option(name: .customLong("var"), help: "A provider variable as name=value; repeat for each.")
    var variables: [String] = []

    /// The variables by name; `validate()` has refused malformed and repeated ones.
    var values: [String: String] { Self.values(variables) }

    func validate() throws {
        try Self.validate(variables)
    }

    /// Refuses a pair without a name and `=`, and a name given twice: a malformed command line (exit 64).
    static func validate(_ pairs: [String]) throws {
        var seen: Set<String> = []
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw ValidationError("--var takes name=value, got `\(pair)`")
            }
            let name = String(pair[..<equals])
            guard seen.insert(name).inserted else { throw ValidationError("--var \(name) is given twice") }
        }
    }

    /// `name=value` pairs by name, once ``validate(_:)`` has accepted them.
    static func values(_ pairs: [String]) -> [String: String] {
        var values: [String: String] = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else { continue }
            values[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return values
    }
}
#endif
