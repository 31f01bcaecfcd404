package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// Twilio sends SMS through the Twilio Messages API, or any gateway that
// speaks it: POST {base}/2010-04-01/Accounts/{sid}/Messages.json with a
// form body (To, From or MessagingServiceSid, Body) and HTTP Basic auth
// sid:token. Success is a 2xx JSON message resource; failure is a JSON
// error {code, message, more_info, status}.
type Twilio struct {
	endpoint string
	sid      string
	token    string
	from     string
	client   *http.Client
}

// NewTwilio configures the client from LATCHKEY_SMS_URL (the API base, e.g.
// https://api.twilio.com; see CheckSMSURL), LATCHKEY_SMS_ACCOUNT_SID,
// LATCHKEY_SMS_AUTH_TOKEN and LATCHKEY_SMS_FROM (an E.164 sender number, or
// a Messaging Service SID starting with "MG"). client may be nil for a
// default with a timeout.
func NewTwilio(baseURL, sid, token, from string, client *http.Client) (*Twilio, error) {
	u, err := parseSMSURL(baseURL)
	if err != nil {
		return nil, fmt.Errorf("notify: sms: %w", err)
	}
	if err := CheckSMSAccountSID(sid); err != nil {
		return nil, fmt.Errorf("notify: sms: %w", err)
	}
	if token == "" {
		return nil, errors.New("notify: sms: LATCHKEY_SMS_AUTH_TOKEN is empty")
	}
	if strings.TrimSpace(from) == "" {
		return nil, errors.New("notify: sms: LATCHKEY_SMS_FROM is empty")
	}
	if client == nil {
		client = &http.Client{Timeout: smsTimeout}
	}
	return &Twilio{endpoint: u.String() + "/2010-04-01/Accounts/" + url.PathEscape(sid) + "/Messages.json",
		sid: sid, token: token, from: strings.TrimSpace(from), client: client}, nil
}

// CheckSMSURL reports why rawURL is not a LATCHKEY_SMS_URL that NewTwilio
// accepts, or nil; config.Validate calls it so that a bad URL stops the
// server at startup, with NewTwilio's reason.
func CheckSMSURL(rawURL string) error {
	_, err := parseSMSURL(rawURL)
	return err
}

// CheckSMSAccountSID is NewTwilio's check of LATCHKEY_SMS_ACCOUNT_SID,
// which becomes a segment of every send's API path, for config.Validate
// (as CheckSMSURL).
func CheckSMSAccountSID(sid string) error {
	if strings.TrimSpace(sid) == "" || strings.ContainsAny(sid, "/?#% ") {
		return errors.New("LATCHKEY_SMS_ACCOUNT_SID is empty or malformed")
	}
	return nil
}

// parseSMSURL parses the gateway's API base: https, or http only to a
// loopback host (as for SMTP, see isLoopback), because every send carries
// the account SID and auth token as HTTP Basic, which plain HTTP would hand
// to anyone on the path. Credentials in the URL itself are refused: they
// belong in LATCHKEY_SMS_ACCOUNT_SID and _AUTH_TOKEN. Errors name at most
// the host, never a credential.
func parseSMSURL(rawURL string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(rawURL), "/"))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return nil, errors.New("LATCHKEY_SMS_URL must be an absolute https URL without credentials, e.g. https://api.twilio.com")
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return nil, fmt.Errorf("LATCHKEY_SMS_URL must use https: http to %q would send the gateway's account SID "+
			"and auth token in clear (http is allowed only to localhost or a loopback address)", u.Hostname())
	}
	return u, nil
}

// GatewayError is a refusal reported by the SMS gateway. It unwraps to one
// of the ErrSMS* recipient errors when the gateway's code means one, so
// callers can tell "bad number" from "gateway trouble".
//
// It never quotes the gateway's answer: a Twilio message resource echoes
// the body, the live one-time code, and the edge logs an error's text
// (httpapi.WriteError). Only the status, the gateway's error code, and its
// error message (scrubbed, see scrubGatewayText) or a description of an
// answer it could not read (content type and length) are kept.
type GatewayError struct {
	Status  int    // HTTP status
	Code    int    // the gateway's error code (0 when absent)
	Message string // the gateway's message, scrubbed, for operators' logs
}

func (e *GatewayError) Error() string {
	return fmt.Sprintf("notify: sms gateway: HTTP %d, code %d: %s", e.Status, e.Code, e.Message)
}

// Unwrap maps the Twilio error codes that concern the recipient.
func (e *GatewayError) Unwrap() error {
	switch e.Code {
	case 21211, 21614, 21217, 21401: // invalid To, not a mobile number, malformed number
		return ErrSMSInvalidNumber
	case 21408, 21215, 21612: // region not enabled, geo permission, unroutable
		return ErrSMSCountryNotAllowed
	case 21610: // the recipient replied STOP
		return ErrSMSUnsubscribed
	}
	return nil
}

type twilioError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  int    `json:"status"`
}

type twilioMessage struct {
	SID          string  `json:"sid"`
	Status       string  `json:"status"`
	ErrorCode    *int    `json:"error_code"`
	ErrorMessage *string `json:"error_message"`
}

// SendSMS posts one message. The auth token never appears in errors.
func (t *Twilio) SendSMS(ctx context.Context, m SMS) error {
	to := strings.TrimSpace(m.To)
	if to == "" || m.Body == "" {
		return errors.New("notify: sms: empty recipient or body")
	}
	form := url.Values{"To": {to}, "Body": {m.Body}}
	if strings.HasPrefix(t.from, "MG") {
		form.Set("MessagingServiceSid", t.from)
	} else {
		form.Set("From", t.from)
	}
	ctx, cancel := context.WithTimeout(ctx, smsTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("notify: sms: request: %w", err)
	}
	req.SetBasicAuth(t.sid, t.token)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	res, err := t.client.Do(req)
	if err != nil {
		return fmt.Errorf("notify: sms: post: %w", redactURLError(err))
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if err != nil {
		return fmt.Errorf("notify: sms: read response: %w", err)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		var te twilioError
		if json.Unmarshal(body, &te) != nil || (te.Code == 0 && te.Message == "") {
			return &GatewayError{Status: res.StatusCode, Message: "non-JSON error response: " + describe(res, body)}
		}
		return &GatewayError{Status: res.StatusCode, Code: te.Code, Message: scrubGatewayText(te.Message, m)}
	}
	var msg twilioMessage
	if err := json.Unmarshal(body, &msg); err != nil || msg.SID == "" {
		return &GatewayError{Status: res.StatusCode, Message: "unexpected success response: " + describe(res, body)}
	}
	// A message can be accepted and failed at once (status "failed" with an
	// error code); report it as the refusal it is.
	if msg.Status == "failed" || msg.Status == "undelivered" || (msg.ErrorCode != nil && *msg.ErrorCode != 0) {
		ge := &GatewayError{Status: res.StatusCode, Message: "message " + scrubGatewayText(msg.Status, m)}
		if msg.ErrorCode != nil {
			ge.Code = *msg.ErrorCode
		}
		if msg.ErrorMessage != nil {
			ge.Message = scrubGatewayText(*msg.ErrorMessage, m)
		}
		return ge
	}
	return nil
}

// redactURLError drops the request URL from transport errors: it names the
// account SID, which belongs in configuration, not in logs of every failure.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s: %w", ue.Op, ue.Err)
	}
	return err
}

// describe says what an answer the gateway gave was, without a byte of it:
// its content type (the media type only) and its length.
func describe(res *http.Response, body []byte) string {
	ct := "no content type"
	if v := res.Header.Get("Content-Type"); v != "" {
		ct = "unparsable content type"
		if mt, _, err := mime.ParseMediaType(v); err == nil && len(mt) <= 100 {
			ct = mt
		}
	}
	return fmt.Sprintf("%s, %d bytes", ct, len(body))
}

// digitRunRE is a run of four or more digits, spaces, dots, dashes and
// parentheses allowed between them: a phone number in any of its forms,
// or a code.
var digitRunRE = regexp.MustCompile(`[0-9](?:[ .()-]*[0-9]){3,}`)

// scrubGatewayText is the gateway's own error message (or status) with
// what it must not carry into a log taken out. Twilio's messages quote
// the recipient's number ("The 'To' number +1415... is not a valid phone
// number."), and a gateway that speaks Twilio's API may as well quote the
// body it was given: so every run of digits (numbers and codes in any
// form) and then every word of the body of four or more characters that
// holds a digit (where the code is, whatever its alphabet) become
// "[redacted]". The gateway's numeric code travels apart, in
// GatewayError.Code. The text is capped at 200 bytes.
func scrubGatewayText(s string, m SMS) string {
	s = digitRunRE.ReplaceAllString(s, "[redacted]")
	for _, w := range strings.Fields(m.Body) {
		if len(w) >= 4 && strings.ContainsAny(w, "0123456789") {
			s = strings.ReplaceAll(s, w, "[redacted]")
		}
	}
	s = strings.ToValidUTF8(strings.TrimSpace(s), "?")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "..."
	}
	return s
}
