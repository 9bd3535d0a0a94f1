import Foundation
import Yams

extension DescriptorDocument {
    /// Decodes a node tree that has passed the schema check.
    ///
    /// The tree is converted, guided by the schema, into JSON and decoded with
    /// `JSONDecoder`. `YAMLDecoder` would work too, but it looks keys up by
    /// comparing nodes, resolving each scalar's tag with regular expressions on
    /// every comparison, which made it most of the cost of loading a descriptor.
    static func decode(_ root: Node) throws -> ProviderDescriptor {
        let object = plainValue(root, .object(DescriptorSchema.fields))
        let data = try JSONSerialization.data(withJSONObject: object)
        return try JSONDecoder().decode(ProviderDescriptor.self, from: data)
    }

    private static func plainValue(_ node: Node, _ shape: DescriptorSchema.Shape) -> Any {
        switch (node, shape) {
        case let (.mapping(mapping), .object(fields)):
            var result: [String: Any] = [:]
            for (key, value) in mapping {
                guard let name = key.string, let field = fields.first(where: { $0.name == name }) else { continue }
                result[name] = plainValue(value, field.shape)
            }
            return result
        case let (.mapping(mapping), .map(valueShape)):
            var result: [String: Any] = [:]
            for (key, value) in mapping {
                if let name = key.string { result[name] = plainValue(value, valueShape) }
            }
            return result
        case let (.sequence(sequence), .list(itemShape)):
            return sequence.map { plainValue($0, itemShape) }
        case (.scalar, .boolean):
            return node.bool ?? false
        case (.scalar, .integer):
            return node.int ?? 0
        case let (.scalar(scalar), .either(shapes)):
            if node.tagName == .int, shapes.contains(where: { if case .integer = $0 { true } else { false } }) {
                return node.int ?? 0
            }
            return scalar.string
        case let (.scalar(scalar), _):
            return scalar.string
        default:
            return NSNull()
        }
    }
}
