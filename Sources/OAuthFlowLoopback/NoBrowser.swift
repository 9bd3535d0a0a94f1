#if NIO
import Foundation

/// Opens nothing: the host shows the URL itself (``LoopbackSignIn/Event/openURL(_:)``).
public struct NoBrowser: BrowserOpener {
    public init() {}
    public func open(_ url: URL) async throws {}
}
#endif
