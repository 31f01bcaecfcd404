package emailupdate

import (
	"net/http"

	"github.com/latchkey/latchkey/internal/emailotp"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/magiclink"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
)

// Handlers serves start_email_update on both faces. Sessions resolves the
// logged-in member behind SDK calls.
type Handlers struct {
	Service  *Service
	Sessions organization.Sessions
}

type startRequest struct {
	EmailAddress     string `json:"email_address"`
	LoginRedirectURL string `json:"login_redirect_url"`
	// A custom template is refused (Unsupported); locale picks the
	// email's language.
	LoginTemplateID string `json:"login_template_id"`
	Locale          string `json:"locale"`
	DeliveryMethod  string `json:"delivery_method"`
}

// Unsupported refuses the fields this server cannot honour (httpapi.Decode calls it).
func (req startRequest) Unsupported() error {
	return httpapi.RefuseUnsupported(httpapi.Set("login_template_id", req.LoginTemplateID), httpapi.Locale("locale", req.Locale))
}

func (req startRequest) params(p *project.Project, o *organization.Organization, memberID string) StartParams {
	return StartParams{Project: p, Organization: o, MemberID: memberID, Email: req.EmailAddress,
		RedirectURL: req.LoginRedirectURL, DeliveryMethod: req.DeliveryMethod, Locale: httpapi.LocaleTag(req.Locale)}
}

// SDKSelf handles SDK POST b2b/organizations/members/start_email_update:
// the logged-in member changes their own address.
func (h Handlers) SDKSelf(r *http.Request) (any, error) {
	return h.sdk(r, "")
}

// SDKMember handles SDK POST b2b/organizations/members/{member_id}/start_email_update:
// a member's own address, or (admins) another member's of the same
// organization.
func (h Handlers) SDKMember(r *http.Request) (any, error) {
	return h.sdk(r, r.PathValue("member_id"))
}

func (h Handlers) sdk(r *http.Request, memberID string) (any, error) {
	var req startRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	method, err := DeliveryMethod(req.DeliveryMethod)
	if err != nil {
		return nil, err
	}
	c, err := organization.CallerFromSession(r, h.Service.d.Orgs, h.Sessions)
	if err != nil {
		return nil, err
	}
	if memberID == "" {
		memberID = c.Member.MemberID
	}
	if err := c.AuthorizeMember(r.Context(), memberID, organization.ActionEmail); err != nil {
		return nil, err
	}
	if err := c.StepUp(); err != nil {
		return nil, err
	}
	// The browser may only send what the project offers it.
	product := magiclink.Product
	if method == DeliveryOTP {
		product = emailotp.Product
	}
	if err := project.RequireProduct(r.Context(), product); err != nil {
		return nil, err
	}
	sp := req.params(c.Project, c.Organization, memberID)
	sp.ClientIP, sp.Caller = httpapi.ClientIP(r), c.Member
	return h.start(r, sp)
}

// Backend handles POST /v1/b2b/organizations/{organization_id}/members/{member_id}/start_email_update
// (update.info.email when a member session header is sent).
func (h Handlers) Backend(r *http.Request) (any, error) {
	var req startRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	c, err := organization.BackendCaller(r, h.Service.d.Orgs, h.Sessions, r.PathValue("organization_id"))
	if err != nil {
		return nil, err
	}
	id := r.PathValue("member_id")
	if err := c.AuthorizeMember(r.Context(), id, organization.ActionEmail); err != nil {
		return nil, err
	}
	// On behalf of a member session (the session header), the same recent
	// factor as on the SDK face; the project secret alone needs none.
	if c.Member != nil {
		if err := c.StepUp(); err != nil {
			return nil, err
		}
	}
	sp := req.params(c.Project, c.Organization, id)
	sp.Caller = c.Member
	return h.start(r, sp)
}

func (h Handlers) start(r *http.Request, sp StartParams) (any, error) {
	m, err := h.Service.Start(r.Context(), sp)
	if err != nil {
		return nil, err
	}
	return &organization.MemberResponse{MemberID: m.MemberID, Member: m, Organization: sp.Organization}, nil
}
