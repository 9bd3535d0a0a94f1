extension ProviderDescriptor {
    /// One entry of the scope-to-resource map, with its URL still a template.
    package struct ResourceTemplate: Sendable, Hashable, Codable {
        package var scope: String
        package var title: String
        package var url: String

        package init(scope: String, title: String, url: String) {
            self.scope = scope
            self.title = title
            self.url = url
        }

        init(plain o: PlainObject) throws {
            self.init(
                scope: try o.required(CodingKeys.scope, o.string), title: try o.required(CodingKeys.title, o.string),
                url: try o.required(CodingKeys.url, o.string))
        }
    }
}

// The schema's `resources` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let resourceFields: [Field] = [
        Field("scope", .string(), required: true, "Scope that grants access to the resource."),
        Field("title", .string(), required: true, "Human-readable name of the resource."),
        Field("url", .urlTemplate, required: true, "Resource URL; may use `{variables}`."),
    ]
}
