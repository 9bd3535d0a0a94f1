import Foundation

/// Room for one new session, reserved before a refresh token is spent.
public protocol TokenStoreReservation: Sendable {
    /// Records `session`, what may be kept of a refresh answer before its checks, as soon as it arrives.
    ///
    /// A process killed after this and before ``commit(_:)`` loses nothing: the store
    /// hands the recorded session out on its next ``TokenStore/load(_:)``. It holds no
    /// unchecked identity (``TokenSet/keepingRefreshToken(of:)``). Do nothing slow before the
    /// record is where the next run finds it: a kill in that window loses the session.
    func record(_ session: StoredSession) async throws
    /// Prepares, before the refresh request is sent, a synchronous recorder for the token
    /// endpoint's raw answer, called on the thread that read its last byte; nil for stores that
    /// cannot write synchronously (the default), which rely on ``record(_:)``.
    ///
    /// A store that returns one must, if the process dies before ``record(_:)``, make its next
    /// ``TokenStore/load(_:)`` return `session` (the one being refreshed) with the answer's
    /// refresh token, if it has one, and its access token marked expired: the new refresh token
    /// on the verified identity (``TokenSet/keepingRefreshToken(of:)``). ``record(_:)`` follows
    /// all the same; failures are left to it to report.
    func answerRecorder(refreshing session: StoredSession) -> (@Sendable (Data) -> Void)?
    /// Makes `session` the stored session.
    func commit(_ session: StoredSession) async throws
    /// Gives the reservation up, dropping anything recorded (the answer failed its checks).
    func abandon() async
}
