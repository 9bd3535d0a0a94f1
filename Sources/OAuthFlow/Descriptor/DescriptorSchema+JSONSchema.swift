import Foundation

extension DescriptorSchema {
    /// The JSON Schema (draft 2020-12) for descriptor files, as published in `providers/schema.json`.
    ///
    /// Editors that run yaml-language-server pick it up through the
    /// `# yaml-language-server: $schema=schema.json` line at the top of each descriptor.
    public static func jsonSchema() -> String {
        var root = objectSchema(fields)
        root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        root["$id"] = "https://oauthflow.dev/schema/provider-descriptor-v1.json"
        root["title"] = "OAuthFlow provider descriptor, format version 1"
        let data = (try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return (String(data: data, encoding: .utf8) ?? "{}") + "\n"
    }

    private static func objectSchema(_ fields: [Field]) -> [String: Any] {
        var properties: [String: Any] = [:]
        for field in fields {
            var property = schema(for: field.shape)
            property["description"] = field.summary
            if let value = field.defaultValue, let typed = jsonDefault(value, shape: field.shape) { property["default"] = typed }
            properties[field.name] = property
        }
        var object: [String: Any] = ["type": "object", "additionalProperties": false, "properties": properties]
        let required = fields.filter(\.required).map(\.name)
        if !required.isEmpty { object["required"] = required }
        return object
    }

    private static func schema(for shape: Shape) -> [String: Any] {
        switch shape {
        case let .string(pattern):
            var result: [String: Any] = ["type": "string"]
            if let pattern { result["pattern"] = pattern }
            return result
        case .urlTemplate:
            return ["type": "string", "pattern": "^https?://[^\\s]+$"]
        case .boolean:
            return ["type": "boolean"]
        case let .integer(range):
            return ["type": "integer", "minimum": range.lowerBound, "maximum": range.upperBound]
        case let .choice(values):
            return ["enum": values]
        case let .list(item):
            return ["type": "array", "items": schema(for: item)]
        case let .map(value):
            return ["type": "object", "additionalProperties": schema(for: value)]
        case let .object(fields):
            return objectSchema(fields)
        case let .either(shapes):
            return ["oneOf": shapes.map(schema(for:))]
        }
    }

    /// A field's documented default as a JSON value of the field's own type (an editor shows it and may insert it), or
    /// nil for one the reference states in words (`true for oidc, false for oauth2`), which only the reference shows.
    private static func jsonDefault(_ text: String, shape: Shape) -> Any? {
        switch shape {
        case .boolean: return text == "true" ? true : text == "false" ? false : nil
        case .integer: return Int(text)
        case .list:
            guard text.hasPrefix("["), text.hasSuffix("]") else { return nil }
            let inner = text.dropFirst().dropLast()
            return inner.isEmpty ? [Any]() : inner.components(separatedBy: ", ").map { $0 as Any }
        case .map:
            guard text.hasPrefix("{"), text.hasSuffix("}") else { return nil }
            var entries: [String: Any] = [:]
            for entry in text.dropFirst().dropLast().components(separatedBy: ", ") where !entry.isEmpty {
                guard let colon = entry.range(of: ": ") else { return nil }
                entries[String(entry[..<colon.lowerBound])] = String(entry[colon.upperBound...])
            }
            return entries
        case .string where text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\""): return String(text.dropFirst().dropLast())
        case .string: return text
        case .urlTemplate: return text.hasPrefix("https://") || text.hasPrefix("http://") ? text : nil
        case let .choice(values): return values.contains(text) ? text : nil
        case let .either(shapes): return shapes.lazy.compactMap { jsonDefault(text, shape: $0) }.first
        case .object: return nil
        }
    }

    /// The field reference tables of `Docs/descriptor-format.md`, one table per object.
    public static func markdownReference() -> String {
        var out = ""
        func table(_ title: String, _ prefix: String, _ fields: [Field]) {
            out += "### \(title)\n\n| Key | Type | Required | Default | Meaning |\n| --- | --- | --- | --- | --- |\n"
            var nested: [(String, String, [Field])] = []
            for field in fields {
                let key = prefix + field.name
                out +=
                    "| `\(key)` | \(typeName(field.shape)) | \(field.required ? "yes" : "no") | \(field.defaultValue.map { "`\($0)`" } ?? "") | \(field.summary) |\n"
                switch field.shape {
                case let .object(children): nested.append((key, key + ".", children))
                case let .list(.object(children)): nested.append((key + "[]", key + "[].", children))
                case let .map(.object(children)): nested.append((key + ".NAME", key + ".NAME.", children))
                case let .list(.either(options)):
                    // A list whose entries may be mappings (`discovery.lacks`): the mapping's keys get a table of their own.
                    for case let .object(children) in options { nested.append((key + "[]", key + "[].", children)) }
                default: break
                }
            }
            out += "\n"
            for (title, prefix, children) in nested { table("`\(title)`", prefix, children) }
        }
        table("Top level", "", fields)
        return out
    }

    private static func typeName(_ shape: Shape) -> String {
        switch shape {
        case let .string(pattern): pattern.map { "string matching `\($0)`" } ?? "string"
        case .urlTemplate: "URL template"
        case .boolean: "boolean"
        case let .integer(range): range.count == 1 ? "integer `\(range.lowerBound)`" : "integer \(range.lowerBound)–\(range.upperBound)"
        case let .choice(values): values.map { "`\($0)`" }.joined(separator: " \\| ")
        case let .list(item): "list of \(typeName(item))"
        case let .map(value): "map of \(typeName(value))"
        case .object: "mapping"
        case let .either(shapes): shapes.map(typeName).joined(separator: " or ")
        }
    }
}
