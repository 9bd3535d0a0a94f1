import Foundation

extension ProviderDescriptor {
    /// A descriptor read from YAML text in memory, checked as a file's would be: for a host (or a test) that keeps its
    /// descriptors elsewhere than in a directory (``OAuth/Configuration/descriptors``).
    ///
    /// - Parameters:
    ///   - yaml: The descriptor's text.
    ///   - path: The name its problems are reported under.
    /// - Throws: ``ProviderError`` `invalid_descriptor` with the positioned problems of the text.
    public init(yaml: String, path: String = "memory") throws {
        let document = DescriptorDocument.parse(Data(yaml.utf8), path: path)
        guard let descriptor = document.descriptor else {
            throw ProviderError(
                .invalidDescriptor, "the descriptor \(path) is invalid (run `oauthflow lint` for details):", problems: document.problems)
        }
        self = descriptor
    }
}
