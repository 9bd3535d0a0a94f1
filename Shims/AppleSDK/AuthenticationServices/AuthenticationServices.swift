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

// Sign in with Apple in an app (SystemAppleIDAuthorizer). Sources, developer.apple.com/documentation/authenticationservices/:
//   asauthorizationappleidprovider, …/createrequest(), …/getcredentialstate(foruserid:completion:),
//   …/credentialstate, …/credentialrevokednotification, asauthorizationappleidrequest, asauthorizationopenidrequest
//   (…/requestedscopes, …/nonce, …/state), asauthorizationrequest, asauthorizationcontroller
//   (…/init(authorizationrequests:), …/delegate, …/presentationcontextprovider, …/performrequests(), …/cancel()),
//   asauthorizationcontrollerdelegate, asauthorizationcontrollerpresentationcontextproviding, asauthorization
//   (…/credential, …/scope, …/scope/fullname, …/scope/email), asauthorizationcredential, asauthorizationprovider,
//   asauthorizationappleidcredential (…/user, …/identitytoken, …/authorizationcode, …/email, …/fullname),
//   asauthorizationerror (…/code, …/canceled), asauthorizationerrordomain.

/// `protocol ASAuthorizationProvider : NSObjectProtocol`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol ASAuthorizationProvider: NSObjectProtocol {}

/// `protocol ASAuthorizationCredential : NSCopying, NSSecureCoding, NSObjectProtocol` (the coding requirements left out:
/// the glue neither copies nor codes a credential).
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol ASAuthorizationCredential: NSObjectProtocol {}

/// `class ASAuthorization` (an `NSObject`).
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
open class ASAuthorization: NSObject {
    /// `var provider: any ASAuthorizationProvider { get }`.
    open var provider: any ASAuthorizationProvider { fatalError("shim") }
    /// `var credential: any ASAuthorizationCredential { get }`.
    open var credential: any ASAuthorizationCredential { fatalError("shim") }

    /// `struct Scope : Hashable, Equatable, RawRepresentable, @unchecked Sendable`.
    public struct Scope: Hashable, RawRepresentable, @unchecked Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// `static let fullName: ASAuthorization.Scope`.
        public static let fullName = Scope(rawValue: "shim.fullName")
        /// `static let email: ASAuthorization.Scope`.
        public static let email = Scope(rawValue: "shim.email")
    }
}

/// `class ASAuthorizationRequest` (an `NSObject`).
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
open class ASAuthorizationRequest: NSObject {}

/// `class ASAuthorizationOpenIDRequest : ASAuthorizationRequest`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
open class ASAuthorizationOpenIDRequest: ASAuthorizationRequest {
    /// `var requestedScopes: [ASAuthorization.Scope]?`.
    open var requestedScopes: [ASAuthorization.Scope]?
    /// `var state: String?`.
    open var state: String?
    /// `var nonce: String?`.
    open var nonce: String?
}

/// `class ASAuthorizationAppleIDRequest : ASAuthorizationOpenIDRequest`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
open class ASAuthorizationAppleIDRequest: ASAuthorizationOpenIDRequest {
    /// `var user: String?`.
    open var user: String?
}

/// `class ASAuthorizationAppleIDProvider : NSObject, ASAuthorizationProvider`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
open class ASAuthorizationAppleIDProvider: NSObject, ASAuthorizationProvider {
    /// `enum CredentialState : Int, @unchecked Sendable`.
    public enum CredentialState: Int, @unchecked Sendable {
        case revoked = 0
        case authorized = 1
        case notFound = 2
        case transferred = 3
    }

    /// `class let credentialRevokedNotification: NSNotification.Name`.
    public class var credentialRevokedNotification: NSNotification.Name { NSNotification.Name("shim.credentialRevoked") }

    /// `func createRequest() -> ASAuthorizationAppleIDRequest`.
    open func createRequest() -> ASAuthorizationAppleIDRequest { ASAuthorizationAppleIDRequest() }

    /// `func getCredentialState(forUserID userID: String, completion: @escaping (ASAuthorizationAppleIDProvider.CredentialState, (any Error)?) -> Void)`,
    /// declared `@Sendable` here, the stricter form.
    open func getCredentialState(
        forUserID userID: String, completion: @escaping @Sendable (ASAuthorizationAppleIDProvider.CredentialState, (any Error)?) -> Void
    ) {}

    /// `func credentialState(forUserID userID: String) async throws -> ASAuthorizationAppleIDProvider.CredentialState`.
    open func credentialState(forUserID userID: String) async throws -> ASAuthorizationAppleIDProvider.CredentialState { .notFound }
}

/// `class ASAuthorizationAppleIDCredential : NSObject, ASAuthorizationCredential`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
open class ASAuthorizationAppleIDCredential: NSObject, ASAuthorizationCredential {
    /// `var user: String { get }`.
    open var user: String { "" }
    /// `var identityToken: Data? { get }`.
    open var identityToken: Data? { nil }
    /// `var authorizationCode: Data? { get }`.
    open var authorizationCode: Data? { nil }
    /// `var email: String? { get }`.
    open var email: String? { nil }
    /// `var fullName: PersonNameComponents? { get }`.
    open var fullName: PersonNameComponents? { nil }
}

/// `@MainActor protocol ASAuthorizationControllerDelegate : NSObjectProtocol`; both methods are optional in the
/// SDK's Objective-C protocol, so a conformer implements them with exactly these names.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@MainActor
public protocol ASAuthorizationControllerDelegate: NSObjectProtocol {
    /// `optional func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)`.
    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)
    /// `optional func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)`.
    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)
}

/// `@MainActor protocol ASAuthorizationControllerPresentationContextProviding : NSObjectProtocol`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, *)
@MainActor
public protocol ASAuthorizationControllerPresentationContextProviding: NSObjectProtocol {
    /// `func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor`.
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor
}

/// `class ASAuthorizationController` (an `NSObject`).
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
open class ASAuthorizationController: NSObject {
    /// `init(authorizationRequests: [ASAuthorizationRequest])`.
    public init(authorizationRequests: [ASAuthorizationRequest]) {
        super.init()
    }

    /// `weak var delegate: (any ASAuthorizationControllerDelegate)? { get set }`.
    open weak var delegate: (any ASAuthorizationControllerDelegate)?
    /// `weak var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)? { get set }`.
    @available(iOS 13.0, macOS 10.15, tvOS 13.0, *)
    open weak var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)?
    /// `func performRequests()`.
    open func performRequests() {}
    /// `func cancel()` (iOS 16, macOS 13).
    @available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
    open func cancel() {}
}

/// `let ASAuthorizationErrorDomain: String`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public let ASAuthorizationErrorDomain: String = "com.apple.AuthenticationServices.AuthorizationError"

/// `struct ASAuthorizationError` (the Swift form of the error domain's `NSError`s).
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct ASAuthorizationError: CustomNSError, Hashable {
    /// `enum Code : Int` (the cases the glue reads).
    public enum Code: Int, Sendable {
        case unknown = 1000
        /// The user cancelled the request.
        case canceled = 1001
        case invalidResponse = 1002
        case notHandled = 1003
        case failed = 1004
    }

    public let code: Code

    public init(_ code: Code) {
        self.code = code
    }

    public static var errorDomain: String { ASAuthorizationErrorDomain }
    public var errorCode: Int { code.rawValue }

    public static var canceled: Code { .canceled }
}
