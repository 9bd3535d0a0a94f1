/// What a descriptor's sections refuse as each resolves itself: each refusal with the key path of its setting,
/// in the order the sections meet them, and the variables templates are filled with.
struct PolicyRefusals {
    let providerID: String
    /// The variables' values; nil checks templates without filling them in.
    let variables: [String: String]?
    private(set) var errors: [ProviderError] = []

    init(providerID: String, variables: [String: String]?) {
        self.providerID = providerID
        self.variables = variables
    }

    /// Refuses the setting at `setting` (and the `item` of it: a list's index, a map's key), saying why; `code` is
    /// `unsupported_policy` unless the refusal is a security profile's (`security_profile`).
    mutating func refuse(_ setting: [String], item: String? = nil, code: ErrorCode<ProviderError> = .unsupportedPolicy, _ why: String) {
        errors.append(
            ProviderError(
                code, "`\(setting.joined(separator: "."))` of provider `\(providerID)` \(why)", provider: providerID,
                keyPath: setting + (item.map { [$0] } ?? [])))
    }

    /// A template that is not a URL (an audience, a claim), its variables filled; every one must have a value.
    mutating func filled(_ template: String, _ keyPath: [String], keeping kept: Set<String> = []) -> String {
        var missing: [String] = []
        let rendered = URLTemplate(template).rendering { name in
            guard let variables, !kept.contains(String(name)) else { return "{\(name)}" }
            guard let value = variables[String(name)], !value.isEmpty else {
                missing.append(String(name))
                return nil
            }
            return value
        }
        if let name = missing.first {
            refuse(keyPath, "names `{\(name)}`, which has no value")
        } else if WhiteSpace.isBlank(rendered) {
            refuse(keyPath, "is empty; give the value the tokens carry, or leave the setting out")
        }
        return rendered
    }

    /// Refuses each header of `headers` (a descriptor's `headers` map at `setting`) whose name is not an RFC 9110
    /// token, or whose value holds a control character: either would let the file add or split header lines.
    mutating func checkHeaders(_ headers: [String: String], at setting: [String]) {
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            if name.isEmpty || !name.utf8.allSatisfy(Self.isTokenByte) {
                refuse(setting, item: name, "names a header `\(TerminalText.escaped(name))`, which is not an HTTP field name (RFC 9110 §5.1)")
            } else if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\t" }) {
                refuse(setting, item: name, "gives header `\(name)` a value with a control character, which no header value may carry")
            }
        }
    }

    /// An RFC 9110 token's characters: ASCII letters, digits and ``!#$%&'*+-.^_`|~``.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"): true
        case UInt8(ascii: "!"), UInt8(ascii: "#")...UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// The algorithms of `names` that are among `accepted`, each other one refused at its index of `setting`.
    mutating func algorithms(
        _ names: [String], _ setting: [String], accepted: [JWSAlgorithm]? = nil, because why: (String) -> String
    ) -> [JWSAlgorithm] {
        // Made with room for every name at once: a list grown one algorithm at a time was reallocated for most of them.
        var algorithms: [JWSAlgorithm] = []
        algorithms.reserveCapacity(names.count)
        for (index, name) in names.enumerated() {
            guard let algorithm = JWSAlgorithm(rawValue: name), accepted?.contains(algorithm) ?? true else {
                refuse(setting, item: String(index), why(name))
                continue
            }
            algorithms.append(algorithm)
        }
        return algorithms
    }
}
