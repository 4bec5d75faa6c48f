import HTTPTypes

/// Security headers on every response (`ResponseFinisher` adds them); `Cache-Control: no-store` unless a route
/// chose its own (the export, the pages), and a content security policy that allows nothing unless a route chose its
/// own (the pages load their stylesheet). The fields are made once and appended: no route sets the others, so there
/// is none to replace.
enum SecurityHeaders {
    static let fields: [HTTPField] = [
        HTTPField(name: .xContentTypeOptions, value: "nosniff"), HTTPField(name: HTTPField.Name("X-Frame-Options")!, value: "DENY"),
    ]
    static let noStore = HTTPField(name: .cacheControl, value: "no-store")
    static let allowNothing = HTTPField(name: .contentSecurityPolicy, value: "default-src 'none'")

    /// Adds the security fields, and `Cache-Control: no-store` and the policy that allows nothing when there are none.
    static func secure(_ headers: inout HTTPFields) {
        headers.append(contentsOf: fields)
        if headers[.contentSecurityPolicy] == nil { headers.append(allowNothing) }
        if headers[.cacheControl] == nil { headers.append(noStore) }
    }
}
