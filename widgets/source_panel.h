#pragma once
// The Source dock: the current kernel's source lines (Triton's .py, CUDA built with -lineinfo) with
// their instructions, stall samples and the changes the current variant made, beside the SASS.
// Choosing a line highlights its instructions in the listing and selects the first of them; selecting
// an instruction in the listing chooses its line here. A check box shows the listing's Source column
// (hidden by default: it would not fit beside the others at the default size). Without line tables it
// says so. Files that are not where the line tables say can be found through a folder the user points
// to (Source Folder…), kept with the session (Session::sourceFolders).
#include "core/session/session_file.h" // SourceFolder

#include <QWidget>

#include <cstdint>
#include <vector>

class QCheckBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace sassx {
class ListingModel;
class ListingView;
class SourceModel;
class VariantTree;

class SourcePanel : public QWidget
{
    Q_OBJECT
public:
    SourcePanel(VariantTree* variants, ListingView* listing, QWidget* parent = nullptr);

    SourceModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QCheckBox* columnToggle() const { return m_column; }
    QString statusText() const;
    // The source model's row of the chosen line; -1 when none is.
    int currentLine() const;
    // Chooses the line at the source model's `row`, as a click on it does.
    void chooseLine(int row);
    // The session's source folders: the listing and this dock read the files again through them.
    void setSourceFolders(const std::vector<SourceFolder>& folders);
    // Source Folder… without the dialog: `folder` stands for the directory of the first file not found
    // (and, by name, for any other). False when no file is missing. Emits sourceFoldersChosen.
    bool addSourceFolder(const QString& folder);
    QPushButton* folderButton() const { return m_folder; }

Q_SIGNALS:
    // The folders the user's choice makes (the session keeps them: Session::setSourceFolders).
    void sourceFoldersChosen(const std::vector<SourceFolder>& folders);

public Q_SLOTS:
    void refresh();

private:
    void followSelection(int original);
    void lineChosen(int row, bool fromUser);
    void showListingColumn(bool on);
    void fitListingColumn();

    VariantTree* m_variants;
    ListingView* m_view;
    ListingModel* m_listing;
    SourceModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QLabel* m_status;
    QCheckBox* m_column;
    QPushButton* m_folder;
    std::vector<SourceFolder> m_folders;
    bool m_syncing = false;
};

} // namespace sassx
