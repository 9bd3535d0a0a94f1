// A stand-in for Apple's AuthenticationServices, for type-checking OAuthFlowApple's sign-in glue on Linux
// (scripts/apple-typecheck.sh builds it as a module named AuthenticationServices). It copies only what the glue calls,
// with the signatures Apple documents, `@MainActor` and sendability included; nothing here runs.
//
// Sources, developer.apple.com/documentation/authenticationservices/:
//   aswebauthenticationsession, …/init(url:callbackurlscheme:completionhandler:), …/init(url:callback:completionhandler:),
//   …/callback, …/callback/customscheme(_:), …/callback/https(host:path:), …/completionhandler,
//   …/prefersephemeralwebbrowsersession, …/presentationcontextprovider, …/start(), …/cancel(),
//   aswebauthenticationpresentationcontextproviding, …/presentationanchor(for:), aspresentationanchor,
//   aswebauthenticationsessionerror, aswebauthenticationsessionerrordomain.
//
// What a shim cannot tell (Docs/apple.md): drift from the SDK a developer builds with, availability (the
// `@available` lines below are ignored on Linux; the portability scan reads them), and anything at run time.
import Foundation
import UIKit

/// `typealias ASPresentationAnchor = UIWindow` (iOS, visionOS; `= NSWindow` on macOS, whose AppKit has no shim: the
/// glue's AppKit lines stay unchecked here).
@available(iOS 12.0, macOS 10.15, *)
public typealias ASPresentationAnchor = UIWindow

/// `@MainActor protocol ASWebAuthenticationPresentationContextProviding : NSObjectProtocol`.
@available(iOS 13.0, macOS 10.15, *)
@MainActor
public protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
    /// `func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor`.
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
}

/// `class ASWebAuthenticationSession` (an `NSObject`).
@available(iOS 12.0, macOS 10.15, tvOS 16.0, watchOS 6.2, *)
open class ASWebAuthenticationSession: NSObject {
    /// Documented as `typealias CompletionHandler = (URL?, (any Error)?) -> Void`. Declared `@Sendable` here, the
    /// stricter of the two: code that type-checks against this also compiles if the SDK's handler is not sendable,
    /// and a handler that captures something unsendable is caught.
    public typealias CompletionHandler = @Sendable (URL?, (any Error)?) -> Void

    /// `class Callback`: what a session waits for (iOS 17.4, macOS 14.4). Apple's cannot be made with `init()` or
    /// subclassed; final here so that `Self` is the class.
    @available(iOS 17.4, macOS 14.4, tvOS 17.4, watchOS 10.4, visionOS 1.1, *)
    public final class Callback: NSObject {
        /// `init()` is unavailable: the class methods make callbacks.
        @available(*, unavailable)
        public override init() {
            super.init()
        }

        private init(shim: Void) {
            super.init()
        }

        /// `class func customScheme(_ customScheme: String) -> Self`.
        public class func customScheme(_ customScheme: String) -> Self { Self(shim: ()) }

        /// `class func https(host: String, path: String) -> Self`.
        public class func https(host: String, path: String) -> Self { Self(shim: ()) }

        /// `func matchesURL(_ url: URL) -> Bool`.
        public func matchesURL(_ url: URL) -> Bool { false }
    }

    /// `init(url URL: URL, callbackURLScheme: String?, completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler)`.
    @available(iOS, introduced: 12.0, deprecated: 100000.0)
    @available(macOS, introduced: 10.15, deprecated: 100000.0)
    public init(url URL: URL, callbackURLScheme: String?, completionHandler: @escaping CompletionHandler) {
        super.init()
    }

    /// `init(url URL: URL, callback: ASWebAuthenticationSession.Callback, completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler)`.
    @available(iOS 17.4, macOS 14.4, tvOS 17.4, watchOS 10.4, visionOS 1.1, *)
    public init(url URL: URL, callback: Callback, completionHandler: @escaping CompletionHandler) {
        super.init()
    }

    /// `weak var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)? { get set }`.
    @available(iOS 13.0, macOS 10.15, *)
    open weak var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)?

    /// `var prefersEphemeralWebBrowserSession: Bool { get set }`.
    @available(iOS 13.0, macOS 10.15, watchOS 6.2, *)
    open var prefersEphemeralWebBrowserSession: Bool = false

    /// `var additionalHeaderFields: [String : String]? { get set }`.
    @available(iOS 17.4, macOS 14.4, tvOS 17.4, watchOS 10.4, visionOS 1.1, *)
    open var additionalHeaderFields: [String: String]?

    /// `var canStart: Bool { get }`.
    @available(iOS 13.4, macOS 10.15.4, *)
    open var canStart: Bool { false }

    /// `func start() -> Bool`.
    open func start() -> Bool { false }

    /// `func cancel()`.
    open func cancel() {}
}

/// `let ASWebAuthenticationSessionErrorDomain: String`. The glue compares errors with the SDK's constant, never with
/// this value.
@available(iOS 12.0, macOS 10.15, *)
public let ASWebAuthenticationSessionErrorDomain: String = "com.apple.AuthenticationServices.WebAuthenticationSession"

/// `struct ASWebAuthenticationSessionError` (the Swift form of the error domain's `NSError`s).
@available(iOS 12.0, macOS 10.15, *)
public struct ASWebAuthenticationSessionError: CustomNSError, Hashable {
    /// `enum Code: Int`.
    public enum Code: Int, Sendable {
        /// The user cancelled: dismissed the sheet, or declined the alert asking to open it.
        case canceledLogin = 1
        /// No presentation context provider when `start()` was called.
        case presentationContextNotProvided = 2
        /// The context was not eligible to show the sheet (iOS: a window outside a foreground scene).
        case presentationContextInvalid = 3
    }

    public let code: Code

    public init(_ code: Code) {
        self.code = code
    }

    public static var errorDomain: String { ASWebAuthenticationSessionErrorDomain }
    public var errorCode: Int { code.rawValue }

    public static var canceledLogin: Code { .canceledLogin }
    public static var presentationContextNotProvided: Code { .presentationContextNotProvided }
    public static var presentationContextInvalid: Code { .presentationContextInvalid }
}
