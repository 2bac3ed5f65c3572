package gate

import "github.com/cdkd-action/cdkd-action/internal/model"

// ChangeSet is the reviewed change set the gate compares a deploy with,
// read back from the diff comment (internal/prcomment) or the state bucket
// (internal/reviewstore). It is the domain's: model.ChangeSet.
type ChangeSet = model.ChangeSet
