import Crypto
import Foundation
import OAuthFlowFiles

/// The listing of the bundled descriptors, made when they change (`oauthflow generate-docs`) and shipped beside them as
/// `index.json`, so that `oauthflow providers list` reads one file instead of parsing every bundled descriptor.
///
/// Each entry names its file and the SHA-256 of the bytes it was made from; an entry is used only for a file whose
/// bytes have that digest, so an edited, added or missing file is read as any other descriptor is. A test holds
/// the shipped index equal to what ``text(describing:)`` makes of the bundled descriptors.
package enum BundledCatalog {
    /// The index's name in the bundled providers' directory (not `.yaml`, so the registry does not read it).
    package static let fileName = "index.json"
    /// The index's format; an index of another format is not read.
    static let format = 1
    /// The largest index read: about 600 bytes a descriptor, so some 25,000 descriptors.
    static let maximumIndexSize = 16 << 20

    /// One bundled descriptor's listing, and the digest of the file it was made from.
    struct Entry: Sendable {
        let sha256: String
        let provider: ProviderRegistry.Listing.Provider

        /// Whether `file` holds the bytes this entry was made from.
        func describes(_ file: URL) -> Bool {
            guard let bytes = try? RawFile.read(file.path, limit: DescriptorDocument.maximumSize) else { return false }
            return BundledCatalog.hex(SHA256.hash(data: bytes)) == sha256
        }
    }

    /// The entries of the index in `directory`, by file name; none when it is missing, unreadable or of another format.
    static func entries(in directory: URL) -> [String: Entry] {
        let path = directory.appendingPathComponent(fileName).path
        guard let bytes = try? RawFile.read(path, limit: maximumIndexSize), let index = CompactJSON.parse(bytes),
            index["format"]?.integer == format, case let .array(providers)? = index["providers"]
        else { return [:] }
        var entries: [String: Entry] = [:]
        for item in providers {
            guard let file = item["file"]?.string, let sha256 = item["sha256"]?.string,
                let catalog = item["catalog"].flatMap(ProviderRegistry.CatalogEntry.init(compact:)),
                let variables = item["variables"].flatMap(ProviderRegistry.CatalogEntry.strings)
            else { return [:] }
            entries[file] = Entry(sha256: sha256, provider: ProviderRegistry.Listing.Provider(catalog: catalog, variables: variables))
        }
        return entries
    }

    /// The index of the valid descriptors in `directory` (a file that is not one is left out, and so read by the
    /// listing, which reports it), one line each, sorted by file name.
    package static func text(describing directory: URL) throws -> String {
        struct Line: Encodable {
            let file: String
            let sha256: String
            let catalog: ProviderRegistry.CatalogEntry
            let variables: [String]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var lines: [String] = []
        for name in try ProviderRegistry.descriptorFileNames(in: directory) {
            let file = directory.appendingPathComponent(name)
            let bytes = try RawFile.read(file.path, limit: DescriptorDocument.maximumSize)
            guard let descriptor = DescriptorDocument.load(contentsOf: file).descriptor else { continue }
            let provider = ProviderRegistry.Listing.Provider(descriptor)
            let line = Line(file: name, sha256: hex(SHA256.hash(data: bytes)), catalog: provider.catalog, variables: provider.variables)
            lines.append(String(decoding: try encoder.encode(line), as: UTF8.self))
        }
        return "{\n\"format\": \(format),\n\"providers\": [\n" + lines.joined(separator: ",\n") + "\n]\n}\n"
    }

    /// A digest in lowercase hexadecimal.
    static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(2 * SHA256.Digest.byteCount)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
