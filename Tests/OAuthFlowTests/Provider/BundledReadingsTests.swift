import Foundation
import OAuthFlowTestSupport
import Testing

@testable import OAuthFlow

/// The registry parses each bundled descriptor once per process, and again when the file changed; a file that could
/// not be read is read again the next time.
@Suite struct BundledReadingsTests {
    @Test func aFileIsReadOnceUntilItChangesAndAFailureIsNotKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.url.appendingPathComponent("bundled.yaml")
        try "first".write(to: file, atomically: true, encoding: .utf8)
        let reads = Locked(0)
        func read(_ url: URL) -> ProviderRegistry.FileReading<ProviderDescriptor> {
            reads.withLock { $0 += 1 }
            let document = DescriptorDocument.load(contentsOf: url)
            guard let descriptor = document.descriptor else { return .invalid(document.problems) }
            return .read(id: descriptor.id, descriptor)
        }
        // Not a descriptor: not kept.
        _ = BundledProviders.reading(of: file, read: read)
        _ = BundledProviders.reading(of: file, read: read)
        #expect(reads.current == 2)

        let descriptor = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Tests/OAuthFlowTests/Fixtures/providers/django.yaml"), encoding: .utf8)
        try descriptor.write(to: file, atomically: true, encoding: .utf8)
        guard case let .read(id, _) = BundledProviders.reading(of: file, read: read) else {
            Issue.record("the descriptor was not read")
            return
        }
        #expect(id == "django")
        _ = BundledProviders.reading(of: file, read: read)
        #expect(reads.current == 3, "read once while the file stays the same")

        // Replaced (a new inode), as an upgrade replaces a bundle's files: read again.
        try descriptor.replacingOccurrences(of: "id: django", with: "id: django-next").write(to: file, atomically: true, encoding: .utf8)
        guard case let .read(newID, _) = BundledProviders.reading(of: file, read: read) else {
            Issue.record("the replaced descriptor was not read")
            return
        }
        #expect(newID == "django-next" && reads.current == 4)
    }
}
