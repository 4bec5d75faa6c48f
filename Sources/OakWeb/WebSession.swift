import Crypto
import Foundation
import OakModels

/// A browser signed in to edit: who (the owner, or a named API token) and until when. The browser keeps it as a
/// cookie the server signed (`WebSessions`), so the key it signed in with is never stored in the browser, and the
/// server keeps no session table: a session ends when it expires, when the browser signs out, when the owner key
/// changes (every session at once), or, for a token's, when the token is revoked.
public struct WebSession: Sendable, Equatable {
    /// The token's name; nil for the owner.
    public let tokenName: String?
    public let expires: Date
    /// Random, so two sign-ins never share a cookie or a form token.
    let nonce: String

    /// The name the pages show.
    public var displayName: String { tokenName ?? "owner" }
}

/// Signs and checks session cookies and the form tokens derived from them, with a key derived from the owner key.
public struct WebSessions: Sendable {
    /// The cookie's name.
    public static let cookieName = "oak_session"
    /// How long a sign-in lasts.
    public static let lifetime: TimeInterval = 12 * 3600

    /// The signing key's bytes (`SymmetricKey` is not `Sendable`).
    private let key: [UInt8]

    public init(ownerKey: String) {
        key = Array(HMAC<SHA256>.authenticationCode(for: Data("oak web sessions v1".utf8), using: SymmetricKey(data: Data(ownerKey.utf8))))
    }

    /// A new session for a caller that signed in now.
    public func start(tokenName: String?, now: Date = Date()) -> WebSession {
        var generator = SystemRandomNumberGenerator()
        let nonce = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }.hexString
        return WebSession(tokenName: tokenName, expires: now.addingTimeInterval(Self.lifetime), nonce: nonce)
    }

    /// The cookie's value: `<expiry>.<token name in hex, empty for the owner>.<nonce>.<signature>`.
    public func cookieValue(_ session: WebSession) -> String {
        let payload = "\(Int64(session.expires.timeIntervalSince1970)).\(Array((session.tokenName ?? "").utf8).hexString).\(session.nonce)"
        return payload + "." + signature(payload)
    }

    /// The session a cookie's value holds, when the signature is this server's and it has not expired.
    public func session(cookieValue value: String, now: Date = Date()) -> WebSession? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, constantTimeEquals(parts[3], signature(parts[0...2].joined(separator: "."))),
            let seconds = Int64(parts[0]), case let expires = Date(timeIntervalSince1970: TimeInterval(seconds)), expires > now,
            let nameBytes = Self.bytes(hex: parts[1]), let name = String(bytes: nameBytes, encoding: .utf8)
        else { return nil }
        return WebSession(tokenName: name.isEmpty ? nil : name, expires: expires, nonce: parts[2])
    }

    /// The token every form of a session carries (CSRF protection): only a page this server rendered for the
    /// session holds it, and another site cannot read one.
    public func formToken(for session: WebSession) -> String {
        signature("form." + session.nonce)
    }

    /// Whether a submitted form token is the session's.
    public func acceptsFormToken(_ token: String, for session: WebSession) -> Bool {
        constantTimeEquals(token, formToken(for: session))
    }

    /// The session cookie's value in a `Cookie` header, if it sends one.
    public static func cookieValue(inCookieHeader header: String) -> String? {
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    private func signature(_ text: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: key)).hexString
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        return try? stride(from: 0, to: digits.count, by: 2).map { index in
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { throw CocoaError(.coderInvalidValue) }
            return byte
        }
    }
}
