import OAuthFlowFiles

extension ProviderRegistry.CatalogEntry {
    /// The entry its JSON form (``CodingKeys``, as `JSONEncoder` writes it) holds, read without Foundation's decoder
    /// (``BundledCatalog``); nil when a member is missing or of another type.
    init?(compact json: CompactJSON) {
        func text(_ name: String) -> String? { json[name]?.string }
        // An optional member: absent or null is nil; any other non-text value refuses the entry.
        func optionalText(_ name: String) -> String?? {
            switch json[name] {
            case nil, .null?: .some(nil)
            case let .string(value)?: .some(value)
            default: nil
            }
        }
        guard case let .bool(deviceFlow)? = json["device_flow"], let id = text("id"), let displayName = text("display_name"),
            let `protocol` = text("protocol"), let pkce = text("pkce"), let refresh = text("refresh"), let revocation = text("revocation"),
            let logout = text("logout"), let appClient = text("app_client"), let refreshCondition = optionalText("refresh_condition"),
            let revocationCondition = optionalText("revocation_condition"), let logoutCondition = optionalText("logout_condition"),
            let docsURL = optionalText("docs_url"), let profileFields = json["profile_fields"].flatMap(Self.strings),
            let requiredVariables = json["required_variables"].flatMap(Self.strings)
        else { return nil }
        self.init(
            id: id, displayName: displayName, protocol: `protocol`, pkce: pkce, refresh: refresh, refreshCondition: refreshCondition,
            deviceFlow: deviceFlow, revocation: revocation, revocationCondition: revocationCondition, logout: logout,
            logoutCondition: logoutCondition, profileFields: profileFields, appClient: appClient, requiredVariables: requiredVariables,
            docsURL: docsURL)
    }

    /// A JSON array of strings; nil for anything else.
    static func strings(_ json: CompactJSON) -> [String]? {
        guard case let .array(items) = json else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(items.count)
        for item in items {
            guard let string = item.string else { return nil }
            strings.append(string)
        }
        return strings
    }
}
