extension ProviderDescriptor {
    /// A value the user supplies, such as an Auth0 domain or a Keycloak realm.
    package struct Variable: Sendable, Hashable, Codable {
        package var description: String
        package var required: Bool
        package var `default`: String?
        package var pattern: String?
        package var `enum`: [String]?
        package var example: String?

        package init(from decoder: any Decoder) throws { try self.init(plain: PlainObject(from: decoder)) }

        init(plain o: PlainObject) throws {
            description = try o.required(CodingKeys.description, o.string)
            required = try o.bool(CodingKeys.required) ?? true
            `default` = try o.string(CodingKeys.default)
            pattern = try o.string(CodingKeys.pattern)
            `enum` = try o.strings(CodingKeys.enum)
            example = try o.string(CodingKeys.example)
        }
    }
}

// The schema's `variables` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let variableFields: [Field] = [
        Field("description", .string(), required: true, "What the user should enter."),
        Field("required", .boolean, default: "true", "Whether a value must be given when there is no default."),
        Field("default", .string(), "Value used when none is given."),
        Field("pattern", .string(), "Regular expression the whole value must match."),
        Field("enum", .list(.string()), "The only values allowed."),
        Field("example", .string(), "An example value, shown in help and errors."),
    ]
}
