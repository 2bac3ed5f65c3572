package cfnschema

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestLookup(t *testing.T) {
	tab, err := Load()
	assert.NilError(t, err)
	assert.Assert(t, tab.Version != "" && tab.Source != "", "the table says where it came from")
	assert.Assert(t, tab.Types() > 1000, "every type of the provider index, not a hand-picked few: %d", tab.Types())
	tests := []struct {
		typ, path string
		want      Behavior
	}{
		// Seed 000's example: updatable, never reported.
		{"AWS::RDS::DBInstance", "MasterUserPassword", Behavior{Known: true, WriteOnly: true}},
		{"AWS::RDS::DBInstance", "MasterUsername", Behavior{Known: true, CreateOnly: true}},
		{"AWS::RDS::DBCluster", "MasterUserPassword", Behavior{Known: true, WriteOnly: true}},
		{"AWS::Redshift::Cluster", "MasterUserPassword", Behavior{Known: true, WriteOnly: true}},
		{"AWS::ElastiCache::ReplicationGroup", "AuthToken", Behavior{Known: true, WriteOnly: true}},
		{"AWS::SecretsManager::Secret", "SecretString", Behavior{Known: true, WriteOnly: true}},
		{"AWS::SSM::Parameter", "Value", Behavior{Known: true}},
		{"AWS::SSM::Parameter", "Name", Behavior{Known: true, CreateOnly: true}},
		{"AWS::Lambda::Function", "Environment.Variables.DB_PASSWORD", Behavior{Known: true}},
		// A task definition cannot be updated: every container property is create-only.
		{"AWS::ECS::TaskDefinition", "ContainerDefinitions.0.Environment.1.Value", Behavior{Known: true, CreateOnly: true}},
		{"AWS::DocDB::DBCluster", "MasterUserPassword", Behavior{Known: true}},
		// Every type is in the table: the seeds' queue named after a secret.
		{"AWS::SQS::Queue", "QueueName", Behavior{Known: true, CreateOnly: true}},
		{"AWS::SQS::Queue", "VisibilityTimeout", Behavior{Known: true}},
		{"AWS::SNS::Topic", "TopicName", Behavior{Known: true, CreateOnly: true}},
		{"AWS::S3::Bucket", "BucketName", Behavior{Known: true, CreateOnly: true}},
		{"AWS::DynamoDB::Table", "TableName", Behavior{Known: true, CreateOnly: true}},
		// What the table does not know says nothing.
		{"AWS::SQS::Queue", "NoSuchProperty", Behavior{}},
		{"AWS::Nope::Thing", "Name", Behavior{}},
	}
	for _, tc := range tests {
		t.Run(tc.typ+" "+tc.path, func(t *testing.T) {
			assert.Equal(t, tab.Lookup(tc.typ, tc.path), tc.want)
		})
	}
}

func TestCovers(t *testing.T) {
	assert.Assert(t, covers([]string{"ContainerDefinitions/*/Secrets"}, []string{"ContainerDefinitions", "3", "Secrets", "0"}))
	assert.Assert(t, !covers([]string{"Code/ZipFile"}, []string{"Code"}), "a child entry does not cover its parent")
	assert.Assert(t, !covers([]string{"Name"}, []string{"NameSuffix"}))
}

func TestKinds(t *testing.T) {
	assert.Assert(t, IsCustomResource("Custom::DbSeeder"))
	assert.Assert(t, IsCustomResource("AWS::CloudFormation::CustomResource"))
	assert.Assert(t, !IsCustomResource("AWS::Lambda::Function"))
	assert.Assert(t, IsStateful("AWS::RDS::DBInstance"))
	assert.Assert(t, IsStateful("AWS::ElastiCache::ReplicationGroup"))
	assert.Assert(t, !IsStateful("AWS::Lambda::Function"))
}
