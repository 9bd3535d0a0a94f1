import Foundation

/// A held lock; release it when done.
public protocol TokenStoreLock: Sendable {
    func release()
}
