package mfa

import (
	"slices"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/organization"
)

func checkEnrollment(v string) error {
	if v != "" && v != Enroll && v != Unenroll {
		return apierr.Invalid("set_mfa_enrollment", `set_mfa_enrollment must be "enroll" or "unenroll".`)
	}
	return nil
}

// applyEnrollment updates m after a successful check of method:
// set_mfa_enrollment changes mfa_enrolled (ignored when the organization
// requires MFA of everyone, where the flag has no effect), and the method
// becomes the default when asked or when there is no usable default.
func applyEnrollment(org *organization.Organization, m *organization.Member, method, setEnrollment string, setDefault bool) {
	if org.MFAPolicy != organization.MFARequiredForAll {
		switch setEnrollment {
		case Enroll:
			m.MFAEnrolled = true
		case Unenroll:
			m.MFAEnrolled = false
		}
	}
	if setDefault || !slices.Contains(m.EnrolledMFAMethods(), m.DefaultMFAMethod) {
		m.DefaultMFAMethod = method
	}
}

// fixDefault points default_mfa_method at an enrolled method after one was
// removed ("" when none is left).
func fixDefault(m *organization.Member) {
	enrolled := m.EnrolledMFAMethods()
	if slices.Contains(enrolled, m.DefaultMFAMethod) {
		return
	}
	m.DefaultMFAMethod = ""
	if len(enrolled) > 0 {
		m.DefaultMFAMethod = enrolled[0]
	}
}
