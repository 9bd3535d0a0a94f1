/// Fixed parameters of the requests a browser carries (`authorization.extra_params`, `logout.extra_params`) whose
/// values name the descriptor's `{variables}`: a value each installation has, such as FusionAuth's `tenantId`.
///
/// A placeholder is `{name}` with a variable's name (`^[a-z][a-z0-9_]*$`); any other brace is text (Twitch's
/// `claims` is JSON). Each placeholder must name a declared variable. When the provider is resolved, a value is
/// filled with the variables' values (checked as every variable is: no `/ ? # @ %`, white space or control
/// character), and a parameter naming an optional variable that has no value is left out; the engine encodes it.
extension ProviderDescriptor {
    /// The sections whose `extra_params` values may name variables, by key path.
    package static let variableParameterSettings: [[String]] = [["authorization", "extra_params"], ["logout", "extra_params"]]

    /// The `{variable}` names a fixed parameter's value holds, in order.
    package static func parameterVariables(in value: String) -> [String] {
        parameterParts(value).compactMap { if case .variable(let name) = $0 { name } else { nil } }
    }

    enum ParameterPart: Equatable {
        case text(Substring)
        case variable(String)
    }

    /// `value` cut into text and `{variable}` placeholders.
    static func parameterParts(_ value: String) -> [ParameterPart] {
        // Most values name no variable: without a `{` byte there is no `{` character, and the value is one text part,
        // found without walking its characters (five thousand instructions a value, for every file lint reads).
        guard UTF8Search.contains(UInt8(ascii: "{"), in: value) else { return value.isEmpty ? [] : [.text(value[...])] }
        var parts: [ParameterPart] = []
        var rest = Substring(value)
        var textStart = rest.startIndex
        while let open = rest.firstIndex(of: "{") {
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(where: { !isVariableCharacter($0) }), rest[close] == "}",
                isVariableName(rest[afterOpen..<close])
            else {
                rest = rest[afterOpen...]
                continue
            }
            if open > textStart { parts.append(.text(value[textStart..<open])) }
            parts.append(.variable(String(rest[afterOpen..<close])))
            textStart = rest.index(after: close)
            rest = rest[textStart...]
        }
        if textStart < value.endIndex { parts.append(.text(value[textStart...])) }
        return parts
    }

    private static func isVariableCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLowercase || character.isNumber || character == "_")
    }

    private static func isVariableName(_ name: Substring) -> Bool {
        guard let first = name.first else { return false }
        return first.isASCII && first.isLowercase
    }
}

extension PolicyRefusals {
    /// `parameters`, the `extra_params` map at `setting`, with its `{variable}` placeholders filled; a parameter
    /// naming a variable without a value is left out. Without values (lint), the map as written. Each placeholder
    /// that names no variable in `declared` is refused (`unknown_variable`, reported by lint's
    /// `undeclared_variable`).
    mutating func filledParameters(
        _ parameters: [String: String], at setting: [String], declared: ProviderDescriptor.VariableNames
    ) -> [String: String] {
        // Most maps name no variable: no value holds a `{` byte, so none has a placeholder to refuse or fill, and each
        // value stands as written (what the loop below makes of it, without sorting, cutting and copying the map).
        guard parameters.values.contains(where: { UTF8Search.contains(UInt8(ascii: "{"), in: $0) }) else { return parameters }
        var filled: [String: String] = [:]
        for (name, value) in parameters.sorted(by: { $0.key < $1.key }) {
            let parts = ProviderDescriptor.parameterParts(value)
            var complete = true
            var text = ""
            for part in parts {
                switch part {
                case .text(let written):
                    text += written
                case .variable(let variable):
                    guard declared.contains(variable) else {
                        refuse(
                            setting, item: name, code: .unknownVariable,
                            "names `{\(variable)}` in the value of `\(name)`, which is not a variable the descriptor declares")
                        complete = false
                        continue
                    }
                    guard let variables else {
                        text += "{\(variable)}"
                        continue
                    }
                    // An optional variable without a value (resolved as empty) leaves the parameter out.
                    guard let given = variables[variable], !given.isEmpty else {
                        complete = false
                        continue
                    }
                    text += given
                }
            }
            if complete { filled[name] = text }
        }
        return filled
    }
}
